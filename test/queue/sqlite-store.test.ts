import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
import type { JobStore } from '../../src/jobs/job-store.js';
import { SqliteJobStore } from '../../src/jobs/sqlite-store.js';
import { queueContract } from './queue-contract.js';

describe('SqliteJobStore', () => {
  queueContract({ durable: true }, () => {
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
  });
});
