import { describe, expect, it } from 'vitest';
import type { JobRequest } from '../../src/queue/job-request.js';
import { jobQueueContract } from '../contract/job-queue-contract.js';
import { jobRequest, mentionTrigger } from '../fakes/job-requests.js';
import { MemoryQueue } from '../fakes/memory-queue.js';

jobQueueContract('MemoryQueue (the queue of the handler tests)', () => {
  const queues: MemoryQueue[] = [];
  return {
    async open(runner) {
      const queue = new MemoryQueue(runner);
      queues.push(queue);
      return queue;
    },
    async cleanup() {
      await Promise.all(queues.map((queue) => queue.stop(0)));
    },
  };
});

function request(id: string, overrides: Partial<JobRequest> = {}): JobRequest {
  return jobRequest({ id, dedupeKey: `key-${id}`, trigger: mentionTrigger({ text: '' }), ...overrides });
}

describe('MemoryQueue', () => {
  it('runs each delivery and each dedupe key once', async () => {
    const ran: string[] = [];
    const queue = new MemoryQueue(async (job) => {
      ran.push(job.id);
    });
    const results = [];
    for (let index = 0; index < 100; index++)
      results.push(await queue.enqueue(request(`same-${index}`, { deliveryId: 'd1' })));
    results.push(await queue.enqueue(request('other', { dedupeKey: 'key-same-0' })));
    await queue.idle();
    expect(results.filter((result) => result.accepted)).toHaveLength(1);
    expect(ran).toEqual(['same-0']);
  });

  it('keeps to its concurrency, runs one job per issue at a time, and cancels by issue', async () => {
    let live = 0;
    let peak = 0;
    const started: string[] = [];
    const cancelled: string[] = [];
    const finished: string[] = [];
    // Jobs run until the test lets them finish (or are cancelled), so what overlaps is up to the test.
    let open = false;
    const gates: Array<() => void> = [];
    let onStart = () => {};
    let onCancel = () => {};
    const firstCancelled = new Promise<void>((resolve) => {
      onCancel = resolve;
    });
    const queue = new MemoryQueue(async (job, signal) => {
      live++;
      peak = Math.max(peak, live);
      started.push(job.id);
      onStart();
      await new Promise<void>((resolve) => {
        const finish = () => {
          finished.push(job.id);
          resolve();
        };
        if (open) finish();
        else if (!signal.aborted) gates.push(() => signal.aborted || finish());
        signal.addEventListener('abort', () => {
          cancelled.push(job.id);
          onCancel();
          resolve();
        });
      });
      live--;
    }, 2);
    const twoStarted = new Promise<void>((resolve) => {
      onStart = () => {
        if (started.length === 2) resolve();
      };
    });
    for (let index = 0; index < 5; index++) await queue.enqueue(request(`job-${index}`));
    for (const issueNumber of [8, 9]) {
      const trigger = { ...request('x').trigger, issueNumber } as JobRequest['trigger'];
      await queue.enqueue(request(`other-${issueNumber}`, { trigger }));
    }
    await twoStarted;
    // Both slots are taken by jobs that cannot finish yet: job-0 and the first of the other issues.
    expect(started).toEqual(['job-0', 'other-8']);
    const count = await queue.cancel({ repository: 'Octo/Repo', issueNumber: 7 }, 'stopped');
    // The running job of issue 7 is aborted; only then may the others finish.
    await firstCancelled;
    open = true;
    for (const finish of gates.splice(0)) finish();
    await queue.idle();
    expect(peak).toBe(2);
    expect(count).toBe(5);
    // Jobs for issue 7 queue behind each other, so only the first had started.
    expect(cancelled).toEqual(['job-0']);
    expect(finished).toEqual(['other-8', 'other-9']);
    expect(await queue.latest({ repository: 'octo/repo', issueNumber: 7 })).toMatchObject({ id: 'job-4' });
    expect(await queue.latest({ repository: 'octo/repo', issueNumber: 8 })).toMatchObject({ id: 'other-8' });
    expect(await queue.latest({ repository: 'octo/repo', issueNumber: 10 })).toBeNull();
  });
});
