import { expect, it } from 'vitest';
import { JobCancelledError } from '../../src/errors/job-errors.js';
import { until } from '../helpers/until.js';
import { aborted, result } from '../queue/harness.js';
import { failedRun, mention } from '../queue/requests.js';
import type { QueueContractContext } from './queue-contract-context.js';

/** How a JobStore cancels jobs: the stale ones of a branch that moved on, and an issue's on request. */
export function queueCancelContract(context: QueueContractContext): void {
  const { open, workers } = context;

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
}
