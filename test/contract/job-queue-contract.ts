import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobQueue } from '../../src/queue/job-request.js';
import { type JobRecord, resultWithout } from '../../src/queue/job-store.js';
import type { JobRunner } from '../fakes/memory-queue.js';
import { until } from '../helpers/until.js';
import { aborted, type StoreHarness, TEST_LEASE_MS, workerPool } from '../queue/harness.js';
import { failedRun, mention } from '../queue/requests.js';

/** A queue as the webhook handlers see it, with its jobs run by `runner` and their records to read. */
export type QueueUnderTest = JobQueue & { history(): Promise<JobRecord[]> };

export interface JobQueueSubject {
  /** A queue whose jobs run through `runner`, two at a time. */
  open(runner: JobRunner): Promise<QueueUnderTest>;
  /** Stops what runs the jobs and removes what the test stored. */
  cleanup(): Promise<void>;
}

/** A JobStore as a JobQueue: its jobs run by the one Worker, as the App's worker runs them. */
export function storeAsQueue(harness: StoreHarness): JobQueueSubject {
  const workers = workerPool();
  return {
    async open(runner) {
      const store = await harness.open({ leaseMs: TEST_LEASE_MS });
      workers.start(
        store,
        async (job, { signal }) =>
          (await runner(job.request, signal)) ?? resultWithout(signal.aborted ? 'cancelled' : 'done', null),
        { concurrency: 2 },
      );
      return store;
    },
    async cleanup() {
      await workers.stopAll();
      await harness.cleanup();
    },
  };
}

/**
 * The JobQueue port: what a webhook handler relies on when it enqueues,
 * retries and stops jobs, whatever runs them. Run against each JobStore
 * (with the Worker) and against MemoryQueue, the queue the handler tests
 * use; the stores' own promises (leases, history, restarts) are in
 * queue-contract.ts.
 */
export function jobQueueContract(name: string, makeSubject: () => JobQueueSubject): void {
  describe(`JobQueue contract: ${name}`, () => {
    let subject: JobQueueSubject;
    beforeEach(() => {
      subject = makeSubject();
    });
    afterEach(async () => {
      await subject.cleanup();
    });

    it('accepts a delivery once and a dedupe key once, naming the job it accepted', async () => {
      const ran: string[] = [];
      const queue = await subject.open(async (request) => {
        ran.push(request.id);
      });
      const original = mention(7);
      expect(await queue.enqueue(original)).toEqual({ accepted: true, jobId: original.id });
      for (let again = 0; again < 5; again++) {
        const redelivered = { ...mention(7), deliveryId: original.deliveryId };
        expect(await queue.enqueue(redelivered)).toEqual({ accepted: false, jobId: original.id });
      }
      const sameComment = { ...mention(7), dedupeKey: original.dedupeKey };
      expect(await queue.enqueue(sameComment)).toEqual({ accepted: false, jobId: original.id });
      await until('the job to finish', async () => (await queue.history()).length === 1);
      expect(ran).toEqual([original.id]);
      expect((await queue.history()).map((record) => record.id)).toEqual([original.id]);
    });

    it('names the newest request of an issue for a retry, and stops its jobs, running and waiting', async () => {
      const started: string[] = [];
      const queue = await subject.open(async (request, signal) => {
        started.push(request.id);
        await aborted(signal);
      });
      const [running, waiting] = [mention(5), mention(5)];
      await queue.enqueue(running);
      await queue.enqueue(waiting);
      expect(await queue.latest({ repository: 'Octo/Repo', issueNumber: 5 })).toEqual(waiting);
      expect(await queue.latest({ repository: 'octo/repo', issueNumber: 6 })).toBeNull();
      await until('the first job to start', () => started.length === 1);
      expect(await queue.cancel({ repository: 'octo/REPO', issueNumber: 5 }, 'stopped by @octocat')).toBe(2);
      expect(await queue.cancel({ repository: 'octo/repo', issueNumber: 5 }, 'again')).toBe(0);
      await until('both to end', async () => (await queue.history()).length === 2);
      expect(started).toEqual([running.id]);
      expect((await queue.history()).every((record) => record.outcome === 'cancelled')).toBe(true);
    });

    it('stops the jobs of a branch for an older commit, and runs the one for its new head', async () => {
      const started: string[] = [];
      const queue = await subject.open(async (request, signal) => {
        started.push(request.id);
        if (request.headSha === 'sha-1') await aborted(signal);
      });
      const [old, older, current] = [
        failedRun('feature', 'sha-1'),
        failedRun('feature', 'sha-2'),
        failedRun('feature', 'sha-3'),
      ];
      await queue.enqueue(old);
      await until('the first job to start', () => started.includes(old.id));
      await queue.enqueue(older);
      await queue.enqueue(current);
      const count = await queue.cancelStale(
        { repository: 'Octo/Repo', branch: 'feature', sha: 'sha-3' },
        'superseded',
      );
      expect(count).toBe(2);
      await until('every job to end', async () => (await queue.history()).length === 3);
      const outcomes = Object.fromEntries(
        (await queue.history()).map((record) => [record.id, record.outcome]),
      );
      expect(outcomes).toEqual({ [old.id]: 'cancelled', [older.id]: 'cancelled', [current.id]: 'done' });
      expect(started).toEqual([old.id, current.id]);
    });
  });
}
