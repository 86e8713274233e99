import type { JobStore, StoreOptions } from '../../src/queue/job-store.js';
import type { workerPool } from '../queue/harness.js';
import type { CiVerdictStoreContext } from './ci-verdict-store-contract.js';

/** What each part of the JobStore contract (queue-contract.ts) is handed for the adapter under test. */
export interface QueueContractContext extends CiVerdictStoreContext {
  /** A store on this test's place, with the test's short lease unless `options` says otherwise. */
  open(options?: StoreOptions): Promise<JobStore>;
  /** A second process's store where the adapter is shared, else the same one. */
  second(first: JobStore, options?: StoreOptions): Promise<JobStore>;
  /** Workers started in a test, stopped after it. */
  workers: ReturnType<typeof workerPool>;
  /** Whether the adapter keeps its jobs across a restart (memory does not). */
  durable: boolean;
}

/**
 * Time the test moves, for the stores to record and to run leases out by:
 * it stands still until the test advances it, so no clause waits for the
 * real clock to tick or depends on how fast this machine is.
 */
export function testClock(start = Date.UTC(2030, 0, 1)) {
  let current = start;
  return {
    now: () => current,
    advance: (ms: number) => {
      current += ms;
    },
  };
}
