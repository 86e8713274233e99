import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { JobCancelledError, LeaseLostError } from '../../src/errors/job-errors.js';
import type { JobRequest } from '../../src/queue/job-request.js';
import type { JobStore, StoreOptions } from '../../src/queue/job-store.js';
import { gate } from '../helpers/gate.js';
import { until } from '../helpers/until.js';
import {
  aborted,
  claimOne,
  observed,
  result,
  type StoreHarness,
  TEST_LEASE_MS,
  workerPool,
} from '../queue/harness.js';
import { failedRun, mention } from '../queue/requests.js';
import { ciVerdictStoreContract } from './ci-verdict-store-contract.js';

/**
 * Time the test moves, for the stores to record and to run leases out by:
 * it stands still until the test advances it, so no clause waits for the
 * real clock to tick or depends on how fast this machine is.
 */
function testClock(start = Date.UTC(2030, 0, 1)) {
  let current = start;
  return {
    now: () => current,
    advance: (ms: number) => {
      current += ms;
    },
  };
}

/**
 * The JobStore contract, run against every adapter (memory, SQLite, BullMQ)
 * together with the one Worker. Durable adapters also prove that a restarted
 * process finds its jobs again.
 */
export function queueContract(adapter: { durable: boolean }, makeHarness: () => StoreHarness): void {
  let harness: StoreHarness;
  const workers = workerPool();
  beforeEach(() => {
    harness = makeHarness();
  });
  afterEach(async () => {
    await workers.stopAll();
    await harness.cleanup();
  });
  const open = (options: StoreOptions = {}) => harness.open({ leaseMs: TEST_LEASE_MS, ...options });
  /** A second process's store where the adapter is shared, else the same one. */
  const second = async (first: JobStore, options: StoreOptions = {}) =>
    harness.durable ? open(options) : first;

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

  it('cancels running and waiting jobs for an older commit when the branch moves on', async () => {
    const store = await open();
    const aborts = new Map<string, unknown>();
    const release = new Set<string>();
    const started: string[] = [];
    workers.start(
      store,
      async (job, { signal }) => {
        started.push(job.request.id);
        const reason = await Promise.race([
          aborted(signal),
          until('release', () => release.has(job.request.id), { timeoutMs: 30_000 }),
        ]);
        if (reason !== undefined) aborts.set(job.request.id, reason);
        return result(signal.aborted ? 'cancelled' : 'fixed');
      },
      { concurrency: 3 },
    );
    const running = failedRun('feature', 'sha-1');
    await store.enqueue(running);
    await until('the first job to start', () => started.includes(running.id));
    const waiting = failedRun('feature', 'sha-2');
    const current = failedRun('feature', 'sha-3');
    const elsewhere = failedRun('main', 'sha-1');
    for (const request of [waiting, current, elsewhere]) await store.enqueue(request);
    await until('the other branch to start', () => started.includes(elsewhere.id));

    const count = await store.cancelStale(
      { repository: 'Octo/Repo', branch: 'feature', sha: 'sha-3' },
      'superseded',
    );
    expect(count).toBe(2);
    await until('the stale job to abort', () => aborts.has(running.id));
    expect(aborts.get(running.id)).toBeInstanceOf(JobCancelledError);
    expect((aborts.get(running.id) as Error).message).toBe('superseded');
    await until('the current job to start', () => started.includes(current.id));
    release.add(current.id);
    release.add(elsewhere.id);
    await until('every job to end', async () => (await store.history()).length === 4);
    const outcomes = Object.fromEntries((await store.history()).map((record) => [record.id, record.outcome]));
    expect(outcomes).toEqual({
      [running.id]: 'cancelled',
      [waiting.id]: 'cancelled',
      [current.id]: 'fixed',
      [elsewhere.id]: 'fixed',
    });
    expect(started).not.toContain(waiting.id);
  });

  it('cancels by issue: the waiting job never starts and the running one aborts', async () => {
    const store = await open();
    const started: string[] = [];
    workers.start(store, async (job, { signal }) => {
      started.push(job.request.id);
      await aborted(signal);
      return result('cancelled');
    });
    const [runningJob, waitingJob] = [mention(5), mention(5)];
    await store.enqueue(runningJob);
    await store.enqueue(waitingJob);
    await until('the first job to start', () => started.length === 1);
    expect(await store.cancel({ repository: 'octo/REPO', issueNumber: 5 }, 'stopped by @octocat')).toBe(2);
    expect(await store.cancel({ repository: 'octo/repo', issueNumber: 5 }, 'again')).toBe(0);
    await until('both to end', async () => (await store.history()).length === 2);
    expect(started).toEqual([runningJob.id]);
    expect(await store.latest({ repository: 'Octo/Repo', issueNumber: 5 })).toEqual(waitingJob);
    expect(await store.latest({ repository: 'octo/repo', issueNumber: 6 })).toBeNull();
  });

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

  it('keeps the history within its retention limit, newest first', async () => {
    const store = await harness.open({ leaseMs: TEST_LEASE_MS, retention: { maxRecords: 3 } });
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

  ciVerdictStoreContract({ open, second });

  // Memory is lost on restart by design; every other clause holds for it too.
  if (!adapter.durable) return;
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
