import { describe } from 'vitest';
import type { JobStore } from '../../src/queue/job-store.js';
import { MemoryJobStore } from '../../src/queue/memory-store.js';
import { queueContract } from './queue-contract.js';

describe('MemoryJobStore', () => {
  queueContract({ durable: false }, () => {
    const stores: JobStore[] = [];
    return {
      durable: false,
      async open(options) {
        const store = new MemoryJobStore(options);
        stores.push(store);
        return store;
      },
      async cleanup() {
        await Promise.all(stores.map((store) => store.close()));
      },
    };
  });
});
