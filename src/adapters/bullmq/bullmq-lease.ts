import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { jobRecord } from '../../queue/job-record.js';
import { type JobRequest, repositoryKey, serialKeyOf } from '../../queue/job-request.js';
import type { JobRecord, JobResult, Lease, LeaseStatus } from '../../queue/job-store.js';
import type { BullmqKeys, OpenEntry } from './bullmq-keys.js';
import {
  ACQUIRE_CONTAINER,
  CHECKPOINT,
  CLAIM,
  HAND_BACK,
  RELEASE_CONTAINER,
  RENEW,
} from './redis-scripts.js';

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

/** What the CLAIM script hands a lease: the open entry, the run, when it first started and its checkpoints. */
interface ClaimedEntry {
  entry: OpenEntry;
  run: number;
  startedAt: number;
  checkpoints: Record<string, string>;
}

/**
 * Runs the CLAIM script on a fetched job: its reply is ok, busy, cancelled,
 * abandoned, done or lost, then details (bullmqLease reads an ok one).
 */
export async function runClaim(
  parts: Pick<BullmqLeaseParts, 'redis' | 'keys' | 'job' | 'token' | 'leaseMs'>,
  limits: { maxRuns: number; startedAt: number },
): Promise<string[]> {
  const { redis, keys, job, token, leaseMs } = parts;
  const id = job.id!;
  const serial = { repository: repositoryKey(job.data.repository), serialKey: serialKeyOf(job.data) };
  return (await CLAIM.run(
    redis,
    [
      keys.lock(id),
      keys.open,
      keys.meta(id),
      keys.key(`done:${id}`),
      keys.serial(serial),
      keys.checkpoints(id),
    ],
    [id, token, leaseMs, limits.maxRuns, limits.startedAt],
  )) as string[];
}

/**
 * A claim on a BullMQ job: BullMQ's lock is the lease and its token the
 * fence; every step also runs one of our scripts, which checks the same lock.
 */
export function bullmqLease(parts: BullmqLeaseParts): Lease {
  const { redis, keys, leaseMs, job, token, notify } = parts;
  const id = job.id!;
  const claimed = claimedEntryOf(parts.claim);
  const lock = keys.lock(id);
  const bookkeeping = [lock, keys.meta(id), keys.serial(claimed.entry), keys.containers];
  return {
    job: { request: claimed.entry.request, run: claimed.run, checkpoints: claimed.checkpoints },
    // Renewals and container slots count in real time, as the lock they go with expires,
    // never on the store's clock.
    renew: () => renewLease(parts, bookkeeping),
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
    complete: (result) => completeLease(parts, claimed, result),
    async release() {
      if ((await HAND_BACK.run(redis, bookkeeping, [id, token])) !== 1) return;
      await job.moveToWait(token).catch(() => {});
      notify();
    },
  };
}

function claimedEntryOf(claim: unknown[]): ClaimedEntry {
  const flat = (claim[4] ?? []) as string[];
  const checkpoints: Record<string, string> = {};
  for (let index = 0; index + 1 < flat.length; index += 2) checkpoints[flat[index]!] = flat[index + 1]!;
  return {
    entry: JSON.parse(String(claim[1])) as OpenEntry,
    run: Number(claim[2]),
    startedAt: Number(claim[3]),
    checkpoints,
  };
}

/** Extends BullMQ's lock, then our bookkeeping's, which also says whether the job was cancelled meanwhile. */
async function renewLease(parts: BullmqLeaseParts, bookkeeping: string[]): Promise<LeaseStatus> {
  const { redis, leaseMs, job, token } = parts;
  if ((await job.extendLock(token, leaseMs)) !== 1) return { state: 'lost' };
  const [state, reason] = (await RENEW.run(redis, bookkeeping, [
    job.id!,
    token,
    leaseMs,
    Date.now(),
  ])) as string[];
  if (state === 'cancelled') return { state: 'cancelled', reason: reason ?? 'cancelled' };
  return state === 'held' ? { state: 'held' } : { state: 'lost' };
}

/** Stores the job's record under the lease, then takes BullMQ's copy off; false when the lease was lost. */
async function completeLease(parts: BullmqLeaseParts, claimed: ClaimedEntry, result: JobResult) {
  const { entry, startedAt, run } = claimed;
  const record = jobRecord(entry.request, result, {
    enqueuedAt: entry.enqueuedAt,
    startedAt,
    finishedAt: parts.now(),
    runs: run,
  });
  if (!(await parts.finish(record, entry))) return false;
  // If this fails the job is already done in our bookkeeping: the next claim of it only completes it.
  await parts.job.moveToCompleted(null, parts.token, false).catch(() => {});
  parts.notify();
  return true;
}
