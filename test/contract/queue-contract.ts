import { afterEach, beforeEach } from 'vitest';
import type { JobStore, StoreOptions } from '../../src/queue/job-store.js';
import { type StoreHarness, TEST_LEASE_MS, workerPool } from '../queue/harness.js';
import { ciVerdictStoreContract } from './ci-verdict-store-contract.js';
import { queueCancelContract } from './queue-cancel-contract.js';
import type { QueueContractContext } from './queue-contract-context.js';
import { queueDeliveryContract } from './queue-delivery-contract.js';
import { queueRecordsContract } from './queue-records-contract.js';
import { queueSchedulingContract } from './queue-scheduling-contract.js';

/**
 * The JobStore contract, run against every adapter (memory, SQLite, BullMQ)
 * together with the one Worker, one topic per file: scheduling, cancelling,
 * the records a store keeps, CI verdicts, and delivery (durable adapters
 * also prove that a restarted process finds its jobs again).
 */
export function queueContract(adapter: { durable: boolean }, makeHarness: () => StoreHarness): void {
  let harness: StoreHarness;
  const workers = workerPool();
  beforeEach(() => {
    harness = makeHarness();
  });
  afterEach(async () => {
    await workers.stopAll();
    await harness.cleanup();
  });
  const open = (options: StoreOptions = {}) => harness.open({ leaseMs: TEST_LEASE_MS, ...options });
  const second = async (first: JobStore, options: StoreOptions = {}) =>
    harness.durable ? open(options) : first;
  const context: QueueContractContext = { open, second, workers, durable: adapter.durable };

  queueSchedulingContract(context);
  queueCancelContract(context);
  queueRecordsContract(context);
  ciVerdictStoreContract(context);
  // Last: its restart clause is left out where the adapter is not durable.
  queueDeliveryContract(context);
}
