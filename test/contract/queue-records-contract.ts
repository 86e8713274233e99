import { expect, it } from 'vitest';
import { until } from '../helpers/until.js';
import { claimOne, result } from '../queue/harness.js';
import { failedRun, mention } from '../queue/requests.js';
import { type QueueContractContext, testClock } from './queue-contract-context.js';

/** What a JobStore tells about its jobs: the history within retention, the open jobs, an installation's spend. */
export function queueRecordsContract(context: QueueContractContext): void {
  const { open, second, workers } = context;

  it('keeps the history within its retention limit, newest first', async () => {
    const store = await open({ retention: { maxRecords: 3 } });
    workers.start(store, async () => result('explained'), { concurrency: 1 });
    const requests = [1, 2, 3, 4, 5].map((issue) => mention(issue));
    for (const request of requests) await store.enqueue(request);
    await until(
      'five jobs',
      async () => (await store.counts()).waiting + (await store.counts()).running === 0,
    );
    // The last job's record, then the pruning, may land just after the counts drop.
    await until('the history pruned to three', async () => {
      const records = await store.history();
      return records.length === 3 && records[0]?.id === requests[4]!.id;
    });
    const history = await store.history();
    expect(history.map((record) => record.id)).toEqual(
      requests
        .slice(2)
        .reverse()
        .map((request) => request.id),
    );
    expect(history[0]).toMatchObject({
      outcome: 'explained',
      attempts: 1,
      tokens: 10,
      runs: 1,
      trigger: 'mention',
    });
    expect(await store.history({ repository: 'elsewhere/repo' })).toEqual([]);
    // The dedupe memory outlives the history: a redelivery of a pruned job is still refused.
    expect((await store.enqueue({ ...mention(1), deliveryId: requests[0]!.deliveryId })).accepted).toBe(
      false,
    );
  });

  it('lists waiting and running jobs oldest first, and drops them once finished', async () => {
    const clock = testClock();
    const enqueuedAt = clock.now();
    const store = await open({ now: clock.now });
    const [first, later] = [mention(41, { installationId: 11 }), failedRun('main', 'sha-41')];
    await store.enqueue(first);
    clock.advance(1000);
    await store.enqueue(later);
    clock.advance(1000);
    const lease = await claimOne(store);
    expect(lease.job.request.id).toBe(first.id);
    const listed = await (await second(store)).openJobs();
    expect(listed).toEqual([
      {
        id: first.id,
        installationId: 11,
        repository: 'octo/repo',
        issueNumber: 41,
        trigger: 'mention',
        state: 'running',
        runs: 1,
        enqueuedAt: expect.any(String),
        startedAt: expect.any(String),
      },
      expect.objectContaining({
        id: later.id,
        trigger: 'workflow-run',
        state: 'waiting',
        runs: 0,
        startedAt: null,
      }),
    ]);
    expect(Date.parse(listed[0]!.startedAt!)).toBeGreaterThanOrEqual(Date.parse(listed[0]!.enqueuedAt));
    expect([listed[0]!.enqueuedAt, listed[0]!.startedAt, listed[1]!.enqueuedAt]).toEqual(
      [enqueuedAt, enqueuedAt + 2000, enqueuedAt + 1000].map((at) => new Date(at).toISOString()),
    );
    expect(await lease.complete(result())).toBe(true);
    expect((await store.openJobs()).map((job) => job.id)).toEqual([later.id]);
  });

  it("adds up an installation's spend since a time, beyond what the history keeps", async () => {
    const clock = testClock();
    const store = await open({ retention: { maxRecords: 1 }, now: clock.now });
    const finish = async (installationId: number, costUsd: number) => {
      await store.enqueue(mention(50, { installationId }));
      const lease = await claimOne(store);
      expect(await lease.complete({ ...result(), costUsd })).toBe(true);
    };
    await finish(21, 0.25);
    const between = clock.now() + 1;
    clock.advance(2);
    await finish(21, 0.5);
    await finish(22, 1);
    await finish(21, 0);
    // The history kept one record; the ledger kept every cost.
    expect(await store.history()).toHaveLength(1);
    const reader = await second(store);
    expect(await reader.spentUsd(21, 0)).toBeCloseTo(0.75, 10);
    expect(await reader.spentUsd(21, between)).toBeCloseTo(0.5, 10);
    expect(await reader.spentUsd(22, 0)).toBeCloseTo(1, 10);
    expect(await reader.spentUsd(23, 0)).toBe(0);
    expect(await reader.spentUsd(21, clock.now() + 60_000)).toBe(0);
  });
}
