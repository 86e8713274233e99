import { setImmediate as nextTurn } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { LeaseLostError } from '../../src/errors/job-errors.js';
import type { JobRequest } from '../../src/queue/job-request.js';
import { gate } from '../helpers/gate.js';
import { until } from '../helpers/until.js';
import { aborted, claimOne, result, TEST_LEASE_MS } from '../queue/harness.js';
import { mention } from '../queue/requests.js';
import { type QueueContractContext, testClock } from './queue-contract-context.js';

/**
 * How a JobStore holds on to a job through redeliveries, lost leases, a
 * stopping worker and (for durable adapters) a restart: a job runs once, and
 * what one worker loses the next one picks up.
 */
export function queueDeliveryContract(context: QueueContractContext): void {
  const { open, second, workers, durable } = context;

  it('accepts one job for 100 re-deliveries of one delivery, and none for its dedupe key again', async () => {
    const first = await open();
    const stores = [first, await second(first)];
    const original = mention(7);
    const redeliveries = Array.from({ length: 100 }, (_, index) =>
      stores[index % 2]!.enqueue({
        ...mention(7),
        deliveryId: original.deliveryId,
        dedupeKey: original.dedupeKey,
      }),
    );
    const results = await Promise.all(redeliveries);
    const accepted = results.filter((answer) => answer.accepted);
    expect(accepted).toHaveLength(1);
    expect(new Set(results.map((answer) => answer.jobId))).toEqual(new Set([accepted[0]!.jobId]));
    const sameComment = await first.enqueue({ ...mention(7), dedupeKey: original.dedupeKey });
    expect(sameComment).toEqual({ accepted: false, jobId: accepted[0]!.jobId });

    const ran: string[] = [];
    workers.start(first, async (job) => {
      ran.push(job.request.id);
      return result();
    });
    // Redis shows the record a moment before BullMQ's copy leaves the active list: both are waited for.
    await until(
      'the job to finish',
      async () =>
        (await first.history()).length === 1 &&
        (await first.counts()).running + (await first.counts()).waiting === 0,
    );
    // Nothing left to run, so nothing can run again: no waiting for a second run to prove it does not come.
    expect(ran).toEqual([accepted[0]!.jobId]);
  });

  it('takes a job over when its lease expires, and fences the worker that lost it', async () => {
    // The lease runs out when the test moves the stores' clock; BullMQ's lock, kept by Redis, in real time.
    const clock = testClock();
    const first = await open({ now: clock.now });
    const other = await second(first, { now: clock.now });
    const request = mention(3);
    await first.enqueue(request);
    const lost = await claimOne(first);
    expect(lost.job).toMatchObject({ run: 1, checkpoints: {} });
    expect(await lost.renew()).toEqual({ state: 'held' });
    await lost.checkpoint('pushed', 'selfdebug/issue-3');
    expect(await other.claim('too-early')).toBeNull();

    clock.advance(TEST_LEASE_MS + 1);
    const taken = await claimOne(other);
    expect(taken.job).toMatchObject({ run: 2, checkpoints: { pushed: 'selfdebug/issue-3' } });
    expect(taken.job.request).toEqual(request);
    expect(await lost.renew()).toEqual({ state: 'lost' });
    await lost.checkpoint('late', 'ignored');
    expect(await lost.complete(result('fixed'))).toBe(false);
    expect(await taken.complete(result('not-fixed'))).toBe(true);
    const history = await first.history();
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({
      id: request.id,
      outcome: 'not-fixed',
      runs: 2,
      deliveryId: request.deliveryId,
    });
  });

  it('on stop, lets a short job finish and hands a long one back to the next worker', async () => {
    const store = await open();
    const started: string[] = [];
    const handedBack: unknown[] = [];
    const [short, long, later] = [mention(1), mention(2), mention(3)];
    const shortEnds = gate();
    const handler = async (
      job: { request: JobRequest; run: number },
      { signal }: { signal: AbortSignal },
    ) => {
      started.push(`${job.request.id}#${job.run}`);
      if (job.request.id === short.id) await shortEnds.opened;
      if (job.request.id === long.id && job.run === 1) {
        handedBack.push(await aborted(signal));
        throw signal.reason;
      }
      return result();
    };
    const first = workers.start(store, handler, { concurrency: 2 });
    await store.enqueue(short);
    await store.enqueue(long);
    await until('both to start', () => started.length === 2);
    await store.enqueue(later);
    const stopping = first.stop(2_000);
    // stop() counts its running jobs within this turn (its loop is parked on a full worker): the short
    // job ends just after that, well within the deadline, and the long one waits it out.
    await nextTurn();
    shortEnds.open();
    expect(await stopping).toEqual({ finished: 1, handedBack: 1 });
    expect(handedBack[0]).toBeInstanceOf(LeaseLostError);
    expect(started).not.toContain(`${later.id}#1`);
    expect((await store.history()).map((record) => record.id)).toEqual([short.id]);

    workers.start(await second(store), handler);
    await until('the rest to finish', async () => (await store.history()).length === 3);
    expect(started).toContain(`${long.id}#2`);
    expect(started).toContain(`${later.id}#1`);
  });

  // Memory is lost on restart by design; every other clause holds for it too.
  if (!durable) return;
  it('finds its jobs again after a restart, resuming the one that was running', async () => {
    const before = await open();
    const requests = [mention(31), mention(32), mention(33)];
    for (const request of requests) await before.enqueue(request);
    const interrupted = await claimOne(before);
    await interrupted.checkpoint('step', 'cloned');
    await before.close();

    const after = await open();
    const seen: { id: string; run: number; checkpoints: object }[] = [];
    workers.start(after, async (job) => {
      seen.push({ id: job.request.id, run: job.run, checkpoints: job.checkpoints });
      return result();
    });
    await until('all three jobs', async () => (await after.history()).length === 3);
    expect(seen).toHaveLength(3);
    expect(seen.find((job) => job.id === interrupted.job.request.id)).toEqual({
      id: interrupted.job.request.id,
      run: 2,
      checkpoints: { step: 'cloned' },
    });
    expect(new Set(seen.map((job) => job.id))).toEqual(new Set(requests.map((request) => request.id)));
  });
}
