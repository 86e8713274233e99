import { randomUUID } from 'node:crypto';
import { BullmqJobStore } from '../../src/adapters/bullmq/bullmq-store.js';
import { jobQueueContract, storeAsQueue } from '../contract/job-queue-contract.js';
import { queueContract } from '../contract/queue-contract.js';
import type { StoreHarness } from './harness.js';
import { describeWithRedis, REDIS_URL } from './redis.js';

function bullmqHarness(): StoreHarness {
  const stores: BullmqJobStore[] = [];
  // A queue of its own per test, removed afterwards, so tests and parallel runs never meet.
  const queueName = `test-${randomUUID()}`;
  return {
    durable: true,
    async open(options) {
      const store = new BullmqJobStore({ ...options, url: REDIS_URL, queueName, prefix: 'selfdebug-test' });
      stores.push(store);
      return store;
    },
    async cleanup() {
      const cleaner = new BullmqJobStore({ url: REDIS_URL, queueName, prefix: 'selfdebug-test' });
      await Promise.all(stores.map((store) => store.close()));
      await cleaner.obliterate();
      await cleaner.close();
    },
  };
}

describeWithRedis('BullmqJobStore', () => {
  queueContract({ durable: true }, bullmqHarness);
  jobQueueContract('BullmqJobStore with the Worker', () => storeAsQueue(bullmqHarness()));
});
