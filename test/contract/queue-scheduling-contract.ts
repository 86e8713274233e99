import { expect, it } from 'vitest';
import type { JobRequest } from '../../src/queue/job-request.js';
import { gate } from '../helpers/gate.js';
import { until } from '../helpers/until.js';
import { observed, result } from '../queue/harness.js';
import { failedRun, mention } from '../queue/requests.js';
import type { QueueContractContext } from './queue-contract-context.js';

/**
 * How the one Worker and a JobStore share out work: one job at a time per
 * repository and branch, each worker within its concurrency, the host within
 * its container cap.
 */
export function queueSchedulingContract(context: QueueContractContext): void {
  const { open, second, workers } = context;

  it('runs one job at a time per repository and branch, and different branches side by side', async () => {
    const watched = observed(await open());
    const store = watched.store;
    const live = new Map<string, number>();
    let overlapSameKey = 0;
    let peak = 0;
    let running = 0;
    const sideBySide = gate();
    workers.start(
      store,
      async (job) => {
        const key = `${job.request.repository.name}|${job.request.baseBranch}`;
        live.set(key, (live.get(key) ?? 0) + 1);
        if (live.get(key)! > 1) overlapSameKey++;
        peak = Math.max(peak, ++running);
        await sideBySide.opened;
        running--;
        live.set(key, live.get(key)! - 1);
        return result();
      },
      { concurrency: 4 },
    );
    const requests: JobRequest[] = [];
    for (let index = 0; index < 3; index++)
      requests.push(
        failedRun('a', `a${index}`),
        failedRun('b', `b${index}`),
        failedRun('a', `c${index}`, 'other'),
      );
    for (const request of requests) await store.enqueue(request);
    // One job of each key runs and holds on until the fourth, free slot has asked for one of the six
    // waiting jobs and got none: the refusal is seen, not inferred from a quiet moment.
    await until('one job of each key running at once', () => running === 3);
    const refusals = watched.emptyClaims();
    await until('the free slot to be refused a job of a busy key', () => watched.emptyClaims() > refusals);
    sideBySide.open();
    await until('all nine jobs', async () => (await store.history()).length === 9);
    expect(overlapSameKey).toBe(0);
    expect(peak).toBe(3);
  });

  it('keeps each worker to its concurrency and the host to its container cap', async () => {
    const first = await open();
    const stores = [first, await second(first)].map(observed);
    const peaks = [0, 0];
    const live = [0, 0];
    let containers = 0;
    let containerPeak = 0;
    const full = gate();
    stores.forEach(({ store }, index) => {
      workers.start(
        store,
        async (_job, { guard, signal }) => {
          peaks[index] = Math.max(peaks[index]!, ++live[index]!);
          const release = await guard.containerSlot(signal);
          containerPeak = Math.max(containerPeak, ++containers);
          await full.opened;
          containers--;
          await release();
          live[index]!--;
          return result();
        },
        { concurrency: 2, maxContainers: 3 },
      );
    });
    for (let issue = 10; issue < 22; issue++) await first.enqueue(mention(issue));
    // Both workers full hold the host's three slots until the fourth job has waited for one (a full
    // worker never waits for work, so a wait begun now is that job's).
    await until(
      'two jobs on each worker and three containers',
      () => live.every((jobs) => jobs === 2) && containers === 3,
    );
    const waits = () => stores.reduce((sum, store) => sum + store.waits(), 0);
    const before = waits();
    await until('the fourth job to wait for a container slot', () => waits() > before);
    full.open();
    await until('all twelve jobs', async () => (await first.history()).length === 12);
    expect(peaks).toEqual([2, 2]);
    expect(containerPeak).toBe(3);
  });
}
