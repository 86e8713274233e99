import { Worker } from '../../src/jobs/worker.js';
import type { JobMatch, JobQueue, JobRequest, StaleTarget } from '../../src/queue/job-request.js';
import {
  type JobRecord,
  type JobResult,
  resultWithout,
  type StoreOptions,
} from '../../src/queue/job-store.js';
import { MemoryJobStore } from '../../src/queue/memory-store.js';

/** Runs one job; may say how it ended, else the history records `done` (or `cancelled` when aborted). */
// biome-ignore lint/suspicious/noConfusingVoidType: a runner written as an async function that returns nothing is Promise<void>.
export type JobRunner = (request: JobRequest, signal: AbortSignal) => Promise<JobResult | undefined | void>;

/**
 * For tests: the memory store and a worker in one object, with a runner
 * function instead of a job handler, and `idle()` to wait until nothing is
 * left. The store deduplicates by delivery id and dedupe key, serializes
 * jobs of one branch or issue, and cancels by issue or pull request.
 */
export class MemoryQueue implements JobQueue {
  readonly store: MemoryJobStore;
  readonly worker: Worker;

  constructor(
    runner: JobRunner,
    concurrency = 2,
    private readonly onError: (request: JobRequest, error: unknown) => void = () => {},
    options: StoreOptions = {},
  ) {
    this.store = new MemoryJobStore(options);
    this.worker = new Worker({
      store: this.store,
      concurrency,
      handler: async (job, { signal }) => {
        try {
          return (
            (await runner(job.request, signal)) ?? resultWithout(signal.aborted ? 'cancelled' : 'done', null)
          );
        } catch (error) {
          this.onError(job.request, error);
          throw error;
        }
      },
    }).start();
  }

  enqueue(request: JobRequest): Promise<{ accepted: boolean; jobId: string }> {
    return this.store.enqueue(request);
  }

  cancel(match: JobMatch, reason: string): Promise<number> {
    return this.store.cancel(match, reason);
  }

  latest(match: JobMatch): Promise<JobRequest | null> {
    return this.store.latest(match);
  }

  cancelStale(target: StaleTarget, reason: string): Promise<number> {
    return this.store.cancelStale(target, reason);
  }

  history(): Promise<JobRecord[]> {
    return this.store.history();
  }

  /** Resolves when nothing waits or runs (tests, graceful shutdown). */
  async idle(): Promise<void> {
    for (;;) {
      const { waiting, running } = await this.store.counts();
      if (waiting === 0 && running === 0 && this.worker.active === 0) return;
      if (this.worker.active > 0) await this.worker.settled();
      else await this.store.waitForWork(10);
    }
  }

  stop(deadlineMs?: number): Promise<{ finished: number; handedBack: number }> {
    return this.worker.stop(deadlineMs);
  }
}
