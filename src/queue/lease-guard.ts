import { LeaseLostError } from '../errors/index.js';
import type { ClaimedJob, JobStore, Lease } from './job-store.js';

/** How often a job waiting for a container slot asks again, unless a slot frees up in this process first. */
const SLOT_POLL_MS = 250;

/**
 * A running job's view of its lease. The worker renews the lease; the guard
 * knows until when it is surely held and refuses every write after that
 * (GitHub, git push, checkpoints), a fifth of the lease before the store
 * could hand the job to another worker. So a worker that was paused or cut
 * off from the queue stops acting before anyone else starts.
 */
export class LeaseGuard {
  lost = false;
  handedBack = false;
  private heldUntil: number;
  private readonly margin: number;

  constructor(
    private readonly lease: Lease,
    private readonly store: JobStore,
    claimedAt: number,
    private readonly maxContainers: number,
    /** The clock the lease is measured by; a test passes its own so a guard never runs out while it waits. */
    private readonly now: () => number = Date.now,
  ) {
    this.heldUntil = claimedAt + store.leaseMs;
    this.margin = Math.floor(store.leaseMs / 5);
  }

  get job(): ClaimedJob {
    return this.lease.job;
  }

  holds(): boolean {
    return !this.lost && !this.handedBack && this.now() < this.heldUntil - this.margin;
  }

  assertHeld(): void {
    if (!this.holds())
      throw new LeaseLostError(this.job.request.id, this.handedBack ? 'handed-back' : 'expired');
  }

  /** A renewal that was sent at `sentAt` succeeded. */
  renewed(sentAt: number): void {
    this.heldUntil = Math.max(this.heldUntil, sentAt + this.store.leaseMs);
  }

  lose(): void {
    this.lost = true;
  }

  handBack(): void {
    this.handedBack = true;
  }

  /** What an earlier run of this job recorded under `key`. */
  earlier(key: string): string | undefined {
    return this.job.checkpoints[key];
  }

  async checkpoint(key: string, value: string): Promise<void> {
    this.assertHeld();
    await this.lease.checkpoint(key, value);
  }

  /** Waits for one of the host's container slots; the returned function gives it back (once). */
  async containerSlot(signal?: AbortSignal): Promise<() => Promise<void>> {
    for (;;) {
      signal?.throwIfAborted();
      this.assertHeld();
      if (await this.lease.acquireContainer(this.maxContainers)) {
        let released = false;
        return async () => {
          if (released) return;
          released = true;
          await this.lease.releaseContainer();
        };
      }
      await this.store.waitForWork(SLOT_POLL_MS, signal);
    }
  }
}
