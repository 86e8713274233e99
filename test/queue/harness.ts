import { type JobHandler, Worker, type WorkerOptions } from '../../src/jobs/worker.js';
import type { JobResult, JobStore, Lease, StoreOptions } from '../../src/queue/job-store.js';
import { NO_LINKS } from '../../src/queue/job-store.js';
import { until } from '../helpers/until.js';

/** What the contract suite needs from an adapter: a fresh place to store jobs per test. */
export interface StoreHarness {
  /** Whether a store opened again on the same place sees the jobs of one that was closed. */
  durable: boolean;
  /** Opens a store on this test's place; durable adapters share jobs between the stores opened. */
  open(options?: StoreOptions): Promise<JobStore>;
  /** Closes every store and worker and removes what the test stored. */
  cleanup(): Promise<void>;
}

/** The lease the contract tests use: short, so expiry is seen within a second or two. */
export const TEST_LEASE_MS = 600;

export function result(outcome: JobResult['outcome'] = 'fixed'): JobResult {
  return { outcome, reason: null, attempts: 1, tokens: 10, costUsd: 0.001, links: NO_LINKS };
}

/** Claims until a job comes (Redis may answer "none" while its blocking fetch is set up). */
export async function claimOne(store: JobStore, timeoutMs = 15_000): Promise<Lease> {
  let lease: Lease | null = null;
  await until(
    'a job to claim',
    async () => {
      lease = await store.claim('test');
      return lease !== null;
    },
    { timeoutMs },
  );
  return lease!;
}

/** Workers started by a test, stopped after it. */
export function workerPool() {
  const started: Worker[] = [];
  return {
    start(store: JobStore, handler: JobHandler, options: Partial<WorkerOptions> = {}): Worker {
      const worker = new Worker({ store, handler, heartbeatMs: 100, pollMs: 100, ...options }).start();
      started.push(worker);
      return worker;
    },
    async stopAll(): Promise<void> {
      await Promise.all(started.splice(0).map((worker) => worker.stop(0)));
    },
  };
}

/**
 * `store` as a worker sees it, counting the moments it had nothing to give:
 * claims that came back empty and waits for work begun (an idle worker, or
 * a job refused a container slot). A test waits for one of these instead of
 * sleeping to show that something did not happen.
 */
export function observed(store: JobStore): { store: JobStore; emptyClaims(): number; waits(): number } {
  let emptyClaims = 0;
  let waits = 0;
  const seen: Partial<JobStore> = {
    async claim(workerId) {
      const lease = await store.claim(workerId);
      if (lease === null) emptyClaims++;
      return lease;
    },
    waitForWork(ms, signal) {
      waits++;
      return store.waitForWork(ms, signal);
    },
  };
  const proxy = new Proxy(store, {
    get(target, property) {
      if (property in seen) return seen[property as keyof JobStore];
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: proxy, emptyClaims: () => emptyClaims, waits: () => waits };
}

/** Resolves when `signal` aborts, with its reason. */
export function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    signal.addEventListener('abort', () => resolve(signal.reason), { once: true });
  });
}
