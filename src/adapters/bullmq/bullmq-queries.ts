import type { Redis } from 'ioredis';
import { describeOpenJob } from '../../queue/job-record.js';
import type { HistoryQuery, JobRecord, OpenJob } from '../../queue/job-store.js';
import { readRecords } from './bullmq-ci-verdicts.js';
import type { BullmqKeys, OpenEntry } from './bullmq-keys.js';

/**
 * The read-only questions the jobs page and the cost ceiling ask of the
 * Redis queue: what is open now, what has finished, and what an
 * installation has spent.
 */
export async function listOpenJobs(redis: Redis, keys: BullmqKeys): Promise<OpenJob[]> {
  const entries = Object.entries(await redis.hgetall(keys.open)).map(
    ([id, text]) => [id, JSON.parse(text) as OpenEntry] as const,
  );
  const pipeline = redis.pipeline();
  for (const [id] of entries) pipeline.hgetall(keys.meta(id)).exists(keys.lock(id));
  const replies = ((await pipeline.exec()) ?? []).map(([, value]) => value);
  return entries
    .map(([, entry], index) => {
      const meta = (replies[index * 2] ?? {}) as Record<string, string>;
      return describeOpenJob(entry.request, {
        // BullMQ's lock is the lease: a job holds one exactly while a worker runs it.
        state: replies[index * 2 + 1] === 1 ? 'running' : 'waiting',
        runs: Number(meta.runs ?? 0),
        enqueuedAt: entry.enqueuedAt,
        startedAt: meta.startedAt ? Number(meta.startedAt) : null,
      });
    })
    .sort((left, right) => left.enqueuedAt.localeCompare(right.enqueuedAt));
}

/** The ledger's members are `jobId|costUsd`, scored by when the job finished (redis-scripts.ts FINISH). */
export async function spentSince(
  redis: Redis,
  keys: BullmqKeys,
  installationId: number,
  sinceMs: number,
): Promise<number> {
  const members = await redis.zrangebyscore(keys.spend(installationId), sinceMs, '+inf');
  return members.reduce((sum, member) => sum + Number(member.slice(member.lastIndexOf('|') + 1)), 0);
}

/** The finished jobs, newest first: ids scored by finishing time under `history`, records in `records`. */
export async function readHistory(redis: Redis, keys: BullmqKeys, query: HistoryQuery): Promise<JobRecord[]> {
  const limit = query.limit ?? 100;
  const repository = query.repository?.toLowerCase();
  const ids = await redis.zrevrange(keys.key('history'), 0, repository === undefined ? limit - 1 : -1);
  return (await readRecords(redis, keys, ids))
    .filter((record) => repository === undefined || record.repository.toLowerCase() === repository)
    .slice(0, limit);
}
