import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteJobStore } from '../../src/adapters/sqlite/sqlite-store.js';
import type { JobStore } from '../../src/queue/job-store.js';
import { jobQueueContract, storeAsQueue } from '../contract/job-queue-contract.js';
import { queueContract } from '../contract/queue-contract.js';
import { until } from '../helpers/until.js';
import { observed, result, type StoreHarness, workerPool } from './harness.js';
import { mention } from './requests.js';

/** Stores on one file of a fresh folder: each stands for a process sharing the queue. */
function sqliteHarness(): StoreHarness {
  const stores: JobStore[] = [];
  const dir = mkdtemp(join(tmpdir(), 'selfdebug-queue-'));
  return {
    durable: true,
    async open(options) {
      const store = new SqliteJobStore(join(await dir, 'queue.db'), options);
      stores.push(store);
      return store;
    },
    async cleanup() {
      await Promise.all(stores.map((store) => store.close()));
      await rm(await dir, { recursive: true, force: true });
    },
  };
}

describe('SqliteJobStore', () => {
  queueContract({ durable: true }, sqliteHarness);
  jobQueueContract('SqliteJobStore with the Worker', () => storeAsQueue(sqliteHarness()));

  it('wakes a worker on another connection to the file without waiting for its poll', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'selfdebug-queue-'));
    // Two stores on one file stand for the App and a worker process.
    const app = new SqliteJobStore(join(dir, 'queue.db'));
    const other = new SqliteJobStore(join(dir, 'queue.db'));
    const workers = workerPool();
    const worker = observed(other);
    const started: string[] = [];
    try {
      // A poll far longer than the test's own timeout: only the file watch can wake this worker.
      workers.start(
        worker.store,
        async (job) => {
          started.push(job.request.id);
          return result();
        },
        { pollMs: 600_000 },
      );
      // Enqueued once the worker found nothing and went to wait: its first claim cannot find the job.
      await until('the worker to wait for work', () => worker.waits() > 0);
      const job = mention();
      await app.enqueue(job);
      await until('the other connection to start the job', () => started.includes(job.id));
      expect(started).toEqual([job.id]);
    } finally {
      await workers.stopAll();
      await Promise.all([app.close(), other.close()]);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
