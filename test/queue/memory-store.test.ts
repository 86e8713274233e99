import { describe } from 'vitest';
import type { JobStore } from '../../src/queue/job-store.js';
import { MemoryJobStore } from '../../src/queue/memory-store.js';
import { jobQueueContract, storeAsQueue } from '../contract/job-queue-contract.js';
import { queueContract } from '../contract/queue-contract.js';
import type { StoreHarness } from './harness.js';

function memoryHarness(): StoreHarness {
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
}

describe('MemoryJobStore', () => {
  queueContract({ durable: false }, memoryHarness);
  jobQueueContract('MemoryJobStore with the Worker', () => storeAsQueue(memoryHarness()));
});
