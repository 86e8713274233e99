import {
  issueNumberOf,
  type JobMatch,
  type JobQueue,
  type JobRequest,
  repositoryKey,
} from './job-request.js';

export type JobRunner = (request: JobRequest, signal: AbortSignal) => Promise<void>;

interface Running {
  request: JobRequest;
  controller: AbortController;
}

/**
 * A queue in this process's memory: enough for one App process, and lost on
 * restart (the durable queues are their own adapters). Deduplicates by
 * delivery id and by the request's dedupe key, runs at most `concurrency`
 * jobs at once, and cancels by issue or pull request.
 */
export class MemoryQueue implements JobQueue {
  private readonly seen = new Set<string>();
  private readonly waiting: JobRequest[] = [];
  private readonly running = new Map<string, Running>();
  private readonly history: JobRequest[] = [];
  private readonly settled: Promise<void>[] = [];

  constructor(
    private readonly runner: JobRunner,
    private readonly concurrency = 2,
    private readonly onError: (request: JobRequest, error: unknown) => void = () => {},
  ) {}

  async enqueue(request: JobRequest): Promise<{ accepted: boolean; jobId: string }> {
    const keys = [`delivery:${request.deliveryId}`, `key:${request.dedupeKey}`];
    if (keys.some((key) => this.seen.has(key))) return { accepted: false, jobId: request.id };
    for (const key of keys) this.seen.add(key);
    this.history.push(request);
    this.waiting.push(request);
    this.pump();
    return { accepted: true, jobId: request.id };
  }

  async cancel(match: JobMatch, reason: string): Promise<number> {
    let count = 0;
    for (let index = this.waiting.length - 1; index >= 0; index--) {
      if (matches(this.waiting[index]!, match)) {
        this.waiting.splice(index, 1);
        count++;
      }
    }
    for (const { request, controller } of this.running.values()) {
      if (matches(request, match) && !controller.signal.aborted) {
        controller.abort(new Error(reason));
        count++;
      }
    }
    return count;
  }

  async latest(match: JobMatch): Promise<JobRequest | null> {
    return this.history.findLast((request) => matches(request, match)) ?? null;
  }

  /** Resolves when nothing waits or runs (tests, graceful shutdown). */
  async idle(): Promise<void> {
    while (this.settled.length > 0 || this.waiting.length > 0) await Promise.all(this.settled.splice(0));
  }

  private pump(): void {
    while (this.running.size < this.concurrency && this.waiting.length > 0) {
      const request = this.waiting.shift()!;
      const controller = new AbortController();
      this.running.set(request.id, { request, controller });
      const done = this.runner(request, controller.signal)
        .catch((error: unknown) => this.onError(request, error))
        .finally(() => {
          this.running.delete(request.id);
          this.pump();
        });
      this.settled.push(done);
    }
  }
}

function matches(request: JobRequest, match: JobMatch): boolean {
  return (
    repositoryKey(request.repository) === match.repository.toLowerCase() &&
    issueNumberOf(request) === match.issueNumber
  );
}
