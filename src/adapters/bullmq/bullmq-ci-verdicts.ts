import type { Redis } from 'ioredis';
import type { CiVerdict } from '../../ci-verdict/ci-verdict.js';
import type { JobRecord } from '../../queue/job-store.js';
import { type BullmqKeys, fixKey } from './bullmq-keys.js';
import { AWAIT_CI_VERDICT, RECORD_CI_VERDICT } from './redis-scripts.js';

/*
 * A finished job's CI verdict and wait live beside its record, not in it:
 * the verdict in the hash `ci-verdicts` (HSETNX lets the first one stand
 * without rewriting the record, whose JSON a Lua script would re-encode —
 * cjson turns empty arrays into objects), the wait in the sorted set
 * `ci-waits` scored by its end. `fixes` finds the job that pushed a commit.
 * FINISH (redis-scripts.ts) prunes all of them with the history.
 */

/** The records of `ids` that are still kept, in that order, each with its verdict or wait. */
export async function readRecords(redis: Redis, keys: BullmqKeys, ids: string[]): Promise<JobRecord[]> {
  if (ids.length === 0) return [];
  const [texts, verdicts, waits] = await Promise.all([
    redis.hmget(keys.key('records'), ...ids),
    redis.hmget(keys.ciVerdicts, ...ids),
    redis.zmscore(keys.ciWaits, ...ids),
  ]);
  return texts.flatMap((text, index) => {
    if (text === null) return [];
    const record = JSON.parse(text) as JobRecord;
    const verdict = verdicts[index] ?? null;
    const wait = waits[index] ?? null;
    if (verdict !== null) record.ciVerdict = JSON.parse(verdict) as CiVerdict;
    else if (wait !== null) record.ciWaitUntil = Number(wait);
    return [record];
  });
}

export async function recordCiVerdict(
  redis: Redis,
  keys: BullmqKeys,
  jobId: string,
  verdict: CiVerdict,
): Promise<boolean> {
  const answer = await RECORD_CI_VERDICT.run(
    redis,
    [keys.key('records'), keys.ciVerdicts, keys.ciWaits],
    [jobId, JSON.stringify(verdict)],
  );
  return answer === 1;
}

export async function awaitCiVerdict(
  redis: Redis,
  keys: BullmqKeys,
  jobId: string,
  untilMs: number | null,
): Promise<boolean> {
  const answer = await AWAIT_CI_VERDICT.run(
    redis,
    [keys.key('records'), keys.ciVerdicts, keys.ciWaits],
    [jobId, untilMs === null ? '' : untilMs],
  );
  return answer === 1;
}

export async function pushedBy(
  redis: Redis,
  keys: BullmqKeys,
  repository: string,
  sha: string,
): Promise<JobRecord | null> {
  const id = await redis.hget(keys.fixes, fixKey(repository, sha));
  return id === null ? null : ((await readRecords(redis, keys, [id]))[0] ?? null);
}

export async function dueCiVerdicts(
  redis: Redis,
  keys: BullmqKeys,
  untilMs: number,
  limit: number,
): Promise<JobRecord[]> {
  const ids = await redis.zrangebyscore(keys.ciWaits, '-inf', untilMs, 'LIMIT', 0, limit);
  return (await readRecords(redis, keys, ids)).filter((record) => record.ciVerdict === undefined);
}
