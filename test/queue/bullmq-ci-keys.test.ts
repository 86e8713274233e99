import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, expect, it } from 'vitest';
import { BullmqJobStore } from '../../src/adapters/bullmq/bullmq-store.js';
import { finishFix, verdictOn } from '../contract/ci-verdict-store-contract.js';
import { TEST_LEASE_MS } from './harness.js';
import { describeWithRedis, REDIS_URL } from './redis.js';

/**
 * The Redis keys that follow fixes' CI (the verdicts, the waits and the
 * index from commit to job) hold nothing of a job once the history has
 * pruned it: read straight from the real Redis, under a queue of this
 * test's own.
 */
describeWithRedis('BullmqJobStore CI keys', () => {
  const queueName = `test-${randomUUID()}`;
  const base = `selfdebug-test:${queueName}:sd`;
  const redis = new Redis(REDIS_URL);
  let store: BullmqJobStore | null = null;

  afterEach(async () => {
    await store?.obliterate();
    await store?.close();
    redis.disconnect();
  });

  it('prunes the verdicts, waits and fix index with the history', async () => {
    store = new BullmqJobStore({
      url: REDIS_URL,
      queueName,
      prefix: 'selfdebug-test',
      leaseMs: TEST_LEASE_MS,
      retention: { maxRecords: 2 },
    });
    const [a, b, c] = ['a', 'b', 'c'].map((digit) => digit.repeat(40)) as [string, string, string];
    const judged = await finishFix(store, a);
    const waiting = await finishFix(store, b);
    await store.recordCiVerdict(judged, verdictOn(a));
    await store.awaitCiVerdict(waiting, 1000);
    expect(await redis.hkeys(`${base}:ci-verdicts`)).toEqual([judged]);
    const kept = await finishFix(store, c);
    await store.awaitCiVerdict(kept, 2000);
    const keys = async () => ({
      verdicts: await redis.hkeys(`${base}:ci-verdicts`),
      waits: await redis.zrange(`${base}:ci-waits`, '0', '-1'),
      fixes: await redis.hgetall(`${base}:fixes`),
      fixKeys: await redis.hkeys(`${base}:fix-keys`),
    });
    expect(await keys()).toEqual({
      verdicts: [],
      waits: [waiting, kept],
      fixes: { [`octo/repo|${b}`]: waiting, [`octo/repo|${c}`]: kept },
      fixKeys: [waiting, kept],
    });

    await finishFix(store, null);
    await finishFix(store, null);
    expect(await keys()).toEqual({ verdicts: [], waits: [], fixes: {}, fixKeys: [] });
  });
});
