import { LeaseGuard } from '../../src/queue/lease-guard.js';
import { MemoryJobStore } from '../../src/queue/memory-store.js';
import { jobRequest } from './job-requests.js';

/** When the job was claimed, on the clock of the store and the guard: one that never moves. */
const CLAIMED_AT = Date.UTC(2030, 0, 1);

/**
 * The guard of a job claimed from a memory store, for the contract suites
 * that run the worker's wrappers (guardCodeHost, resumableWorkspaces,
 * slottedSandboxes). Its clock stands still, so the lease holds however
 * long the suite takes on a loaded machine; `maxContainers` slots are
 * shared by every sandbox the guard opens.
 */
export async function heldLease(maxContainers = 1): Promise<LeaseGuard> {
  const now = () => CLAIMED_AT;
  const store = new MemoryJobStore({ leaseMs: 60_000, now });
  await store.enqueue(jobRequest());
  const lease = await store.claim('contract');
  if (lease === null) throw new Error('the store gave no lease for the queued job');
  return new LeaseGuard(lease, store, now(), maxContainers, now);
}
