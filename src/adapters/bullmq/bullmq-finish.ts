import type { Redis } from 'ioredis';
import { jobRecord } from '../../queue/job-record.js';
import type { JobResult, Retention } from '../../queue/job-store.js';
import type { BullmqKeys, OpenEntry } from './bullmq-keys.js';

/**
 * Ends a job that no running lease finishes: cancelled while it waited, or
 * found cancelled or abandoned when a worker claimed it. Its history record
 * takes the runs and start time kept in the job's meta hash; `token` is the
 * claim's, or '' for a job nobody holds.
 */
export async function finishUnleased(
  redis: Redis,
  keys: BullmqKeys,
  retention: Retention,
  job: { id: string; token: string; entry: OpenEntry; result: JobResult; finishedAt: number },
): Promise<void> {
  const meta = await redis.hgetall(keys.meta(job.id));
  const record = jobRecord(job.entry.request, job.result, {
    enqueuedAt: job.entry.enqueuedAt,
    startedAt: meta.startedAt ? Number(meta.startedAt) : null,
    finishedAt: job.finishedAt,
    runs: Number(meta.runs ?? 0),
  });
  await keys.finish(redis, job.id, job.token, record, job.entry, retention);
}
