import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { jobRecord } from '../../queue/job-record.js';
import type { JobRequest } from '../../queue/job-request.js';
import type { JobRecord, JobResult, Lease, LeaseStatus } from '../../queue/job-store.js';
import type { BullmqKeys, OpenEntry } from './bullmq-keys.js';
import { ACQUIRE_CONTAINER, CHECKPOINT, HAND_BACK, RELEASE_CONTAINER, RENEW } from './redis-scripts.js';

export interface BullmqLeaseParts {
  redis: Redis;
  keys: BullmqKeys;
  leaseMs: number;
  job: Job<JobRequest>;
  token: string;
  /** The CLAIM script's reply: ok, open entry, run, startedAt, checkpoints as a flat list. */
  claim: unknown[];
  finish(record: JobRecord, entry: OpenEntry): Promise<boolean>;
  /** The store's clock, for the finish time the record keeps. */
  now(): number;
  /** Wakes this process's workers (a container slot or a branch may be free). */
  notify(): void;
}

/**
 * A claim on a BullMQ job: BullMQ's lock is the lease and its token the
 * fence; every step also runs one of our scripts, which checks the same lock.
 */
export function bullmqLease(parts: BullmqLeaseParts): Lease {
  const { redis, keys, leaseMs, job, token, notify } = parts;
  const id = job.id!;
  const entry = JSON.parse(String(parts.claim[1])) as OpenEntry;
  const flat = (parts.claim[4] ?? []) as string[];
  const checkpoints: Record<string, string> = {};
  for (let index = 0; index + 1 < flat.length; index += 2) checkpoints[flat[index]!] = flat[index + 1]!;
  const run = Number(parts.claim[2]);
  const startedAt = Number(parts.claim[3]);
  const lock = keys.lock(id);
  const bookkeeping = [lock, keys.meta(id), keys.serial(entry), keys.containers];
  return {
    job: { request: entry.request, run, checkpoints },
    // Renewals and container slots count in real time, as the lock they go with expires,
    // never on the store's clock.
    async renew(): Promise<LeaseStatus> {
      if ((await job.extendLock(token, leaseMs)) !== 1) return { state: 'lost' };
      const [state, reason] = (await RENEW.run(redis, bookkeeping, [
        id,
        token,
        leaseMs,
        Date.now(),
      ])) as string[];
      if (state === 'cancelled') return { state: 'cancelled', reason: reason ?? 'cancelled' };
      return state === 'held' ? { state: 'held' } : { state: 'lost' };
    },
    async checkpoint(key, value) {
      await CHECKPOINT.run(redis, [lock, keys.checkpoints(id)], [token, key, value]);
    },
    async acquireContainer(max) {
      const reply = await ACQUIRE_CONTAINER.run(
        redis,
        [lock, keys.containers],
        [id, token, max, Date.now(), leaseMs],
      );
      return reply === 1;
    },
    async releaseContainer() {
      await RELEASE_CONTAINER.run(redis, [lock, keys.containers], [id, token]);
      notify();
    },
    async complete(result: JobResult) {
      const record = jobRecord(entry.request, result, {
        enqueuedAt: entry.enqueuedAt,
        startedAt,
        finishedAt: parts.now(),
        runs: run,
      });
      if (!(await parts.finish(record, entry))) return false;
      // If this fails the job is already done in our bookkeeping: the next claim of it only completes it.
      await job.moveToCompleted(null, token, false).catch(() => {});
      notify();
      return true;
    },
    async release() {
      if ((await HAND_BACK.run(redis, bookkeeping, [id, token])) !== 1) return;
      await job.moveToWait(token).catch(() => {});
      notify();
    },
  };
}
