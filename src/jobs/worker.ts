import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { JobCancelledError, LeaseLostError } from '../errors/index.js';
import { type Metrics, noMetrics } from '../metrics/metrics.js';
import type { ClaimedJob, JobResult, JobStore, Lease } from '../queue/job-store.js';
import { resultWithout } from '../queue/job-store.js';
import { LeaseGuard } from '../queue/lease-guard.js';
import { type Logger, silentLogger } from '../util/logger.js';
import { jobLogFields } from './job-log-fields.js';

interface JobContext {
  /** Aborts when the job is cancelled, its lease is lost, or it is handed back on shutdown. */
  signal: AbortSignal;
  /** Fences the job's writes to its lease, records steps, and hands out container slots. */
  guard: LeaseGuard;
}

export type JobHandler = (job: ClaimedJob, context: JobContext) => Promise<JobResult>;

export interface WorkerOptions {
  store: JobStore;
  handler: JobHandler;
  /** Jobs this worker runs at once. */
  concurrency?: number;
  /** Containers alive at once on this host, across every worker of the store. */
  maxContainers?: number;
  /** How often a running job's lease is renewed and its cancellation looked up. */
  heartbeatMs?: number;
  /** How long an idle worker waits before asking the store again (work enqueued elsewhere). */
  pollMs?: number;
  workerId?: string;
  logger?: Logger;
  /** Told of every job taken and every job recorded as finished. */
  metrics?: Metrics;
  /** Called once a job's record is stored (the CI follower starts on a pushed fix); must not throw. */
  onRecorded?: (job: ClaimedJob, result: JobResult) => void;
}

interface Running {
  lease: Lease;
  claimedAt: number;
  controller: AbortController;
  guard: LeaseGuard;
  heartbeat: ReturnType<typeof setInterval>;
  beating: boolean;
  cancelReason: string | null;
  released: boolean;
  done: Promise<void>;
}

/**
 * Takes jobs from a JobStore and runs them: at most `concurrency` at once,
 * each under a lease renewed every heartbeat. A cancelled job's signal
 * aborts (the sandbox goes with it); a job whose lease is lost is aborted
 * and never completed here, since another worker owns it now. `stop()`
 * stops taking jobs and hands back what does not finish by the deadline.
 */
export class Worker {
  readonly id: string;
  private readonly store: JobStore;
  private readonly handler: JobHandler;
  private readonly concurrency: number;
  private readonly maxContainers: number;
  private readonly heartbeatMs: number;
  private readonly pollMs: number;
  private readonly logger: Logger;
  private readonly metrics: Metrics;
  private readonly onRecorded: WorkerOptions['onRecorded'];
  private readonly running = new Map<string, Running>();
  private readonly stopping = new AbortController();
  private loop: Promise<void> | null = null;
  private slotFreed: (() => void) | null = null;
  private settledWaiters: (() => void)[] = [];

  constructor(options: WorkerOptions) {
    this.store = options.store;
    this.handler = options.handler;
    this.concurrency = options.concurrency ?? 2;
    this.maxContainers = options.maxContainers ?? 4;
    this.heartbeatMs = options.heartbeatMs ?? Math.min(1000, Math.floor(options.store.leaseMs / 3));
    this.pollMs = options.pollMs ?? 1000;
    this.id = options.workerId ?? `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
    this.onRecorded = options.onRecorded;
    this.logger = options.logger ?? silentLogger;
    this.metrics = options.metrics ?? noMetrics;
  }

  /** Jobs running now. */
  get active(): number {
    return this.running.size;
  }

  start(): this {
    this.loop ??= this.takeJobs();
    return this;
  }

  /** Resolves when the next running job ends (at once when none runs). */
  settled(): Promise<void> {
    if (this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  /**
   * Stops taking jobs, waits up to `deadlineMs` for the running ones, then
   * aborts the rest and hands them back to the queue for another worker.
   */
  async stop(deadlineMs = 30_000): Promise<{ finished: number; handedBack: number }> {
    this.stopping.abort();
    this.slotFreed?.();
    await this.loop;
    const before = this.running.size;
    const all = () => Promise.all([...this.running.values()].map((job) => job.done));
    await Promise.race([all(), sleep(deadlineMs, undefined, { ref: false })]);
    const left = [...this.running.values()];
    for (const job of left) {
      job.guard.handBack();
      job.controller.abort(new LeaseLostError(job.lease.job.request.id, 'handed-back'));
    }
    // A handler that ignores its signal is not waited for forever: its lease goes back now, and the guard keeps it quiet.
    await Promise.race([all(), sleep(Math.min(deadlineMs, 10_000), undefined, { ref: false })]);
    for (const job of this.running.values()) {
      clearInterval(job.heartbeat);
      await this.releaseOnce(job);
    }
    return { finished: before - left.length, handedBack: left.length };
  }

  private async takeJobs(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      if (this.running.size >= this.concurrency) {
        await new Promise<void>((resolve) => {
          this.slotFreed = resolve;
        });
        continue;
      }
      const claimedAt = Date.now();
      let lease: Lease | null;
      try {
        lease = await this.store.claim(this.id);
      } catch (error) {
        this.logger.error({ worker: this.id, error: String(error) }, 'could not claim a job');
        await sleep(this.pollMs, undefined, { signal: this.stopping.signal }).catch(() => {});
        continue;
      }
      if (lease === null) {
        await this.store.waitForWork(this.pollMs, this.stopping.signal);
        continue;
      }
      if (this.stopping.signal.aborted) {
        await lease.release().catch(() => {});
        break;
      }
      this.run(lease, claimedAt);
    }
  }

  private run(lease: Lease, claimedAt: number): void {
    const id = lease.job.request.id;
    const controller = new AbortController();
    const guard = new LeaseGuard(lease, this.store, claimedAt, this.maxContainers);
    const job: Running = {
      lease,
      claimedAt,
      controller,
      guard,
      heartbeat: setInterval(() => void this.beat(job), this.heartbeatMs),
      beating: false,
      cancelReason: null,
      released: false,
      done: Promise.resolve(),
    };
    lease.onCancel?.((reason) => this.cancel(job, reason));
    this.running.set(id, job);
    this.logger.info({ ...jobLogFields(lease.job), worker: this.id }, 'job started');
    this.metrics.jobStarted(lease.job.request.trigger.kind, firstWait(lease.job, claimedAt));
    job.done = (async () => {
      let result: JobResult;
      try {
        result = await this.handler(lease.job, { signal: controller.signal, guard });
      } catch (error) {
        this.logger.error({ job: id, error: String(error) }, 'job crashed');
        result = resultWithout('failed', error instanceof Error ? error.message : String(error));
      }
      clearInterval(job.heartbeat);
      await this.settle(job, result);
    })().finally(() => {
      this.running.delete(id);
      this.slotFreed?.();
      for (const wake of this.settledWaiters.splice(0)) wake();
    });
  }

  private async beat(job: Running): Promise<void> {
    if (job.guard.lost || job.guard.handedBack) return;
    // Checked on every tick, not after a renewal: a renewal can hang as long as the store is unreachable.
    if (!job.guard.holds()) return this.lose(job);
    if (job.beating) return;
    job.beating = true;
    const started = Date.now();
    try {
      const status = await job.lease.renew();
      if (status.state === 'lost') return this.lose(job);
      job.guard.renewed(started);
      if (status.state === 'cancelled') this.cancel(job, status.reason);
    } catch (error) {
      this.logger.warn({ job: job.lease.job.request.id, error: String(error) }, 'could not renew the lease');
    } finally {
      job.beating = false;
    }
  }

  private cancel(job: Running, reason: string): void {
    if (job.cancelReason !== null) return;
    job.cancelReason = reason;
    job.controller.abort(new JobCancelledError(reason));
  }

  private lose(job: Running): void {
    job.guard.lose();
    job.controller.abort(new LeaseLostError(job.lease.job.request.id, 'expired'));
  }

  private async settle(job: Running, result: JobResult): Promise<void> {
    const id = job.lease.job.request.id;
    if (job.guard.lost) {
      this.logger.warn({ job: id }, 'lease lost: another worker takes the job over');
      return;
    }
    if (job.guard.handedBack) {
      await this.releaseOnce(job);
      this.logger.info({ job: id }, 'job handed back');
      return;
    }
    const final =
      job.cancelReason !== null && result.outcome !== 'fixed'
        ? { ...result, outcome: 'cancelled' as const, reason: job.cancelReason }
        : result;
    for (let attempt = 1; ; attempt++) {
      try {
        if (!(await job.lease.complete(final))) this.logger.warn({ job: id }, 'lease lost before completion');
        else {
          this.logger.info({ ...jobLogFields(job.lease.job), outcome: final.outcome }, 'job finished');
          this.metrics.jobFinished(job.lease.job.request.trigger.kind, final, Date.now() - job.claimedAt);
          this.onRecorded?.(job.lease.job, final);
        }
        return;
      } catch (error) {
        // The store may be briefly away; giving up means the job runs again after its lease expires.
        if (attempt >= 5) {
          this.logger.error({ job: id, error: String(error) }, 'could not record the finished job');
          return;
        }
        await sleep(200 * 2 ** attempt);
      }
    }
  }

  private async releaseOnce(job: Running): Promise<void> {
    if (job.released) return;
    job.released = true;
    await job.lease.release().catch((error: unknown) => {
      this.logger.warn(
        { job: job.lease.job.request.id, error: String(error) },
        'could not hand the job back',
      );
    });
  }
}

/** From enqueue to this claim, for a job's first run only (a later run's wait is a crash's, not the queue's). */
function firstWait(job: ClaimedJob, claimedAt: number): number | null {
  const enqueuedAt = Date.parse(job.request.createdAt);
  return job.run === 1 && !Number.isNaN(enqueuedAt) ? Math.max(0, claimedAt - enqueuedAt) : null;
}
