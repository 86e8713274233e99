import { type JobResult, type LeaseStatus, resultWithout } from './job-store.js';

/** A renewed lease's status: held, or cancelled by someone while it ran. */
export function leaseStatusOf(cancelReason: string | null): LeaseStatus {
  return cancelReason === null ? { state: 'held' } : { state: 'cancelled', reason: cancelReason };
}

/** The end of a job whose runs kept dying before they finished (each one a crashed or killed worker). */
export function abandonedAfter(runs: number | string): JobResult {
  return resultWithout('abandoned', `stopped after ${runs} runs that never finished`);
}

/** What is known of a job whose lease ran out (its worker crashed): cancellation, runs, runs handed back. */
export interface ExpiredRun {
  cancelReason: string | null;
  runs: number;
  handbacks: number;
}

/**
 * How a crashed worker's job ends at the next claim: cancelled when it was
 * cancelled meanwhile, abandoned when it keeps killing workers, or null when
 * it may run again. Runs handed back (graceful shutdown) did not crash, so
 * they are not counted.
 */
export function expiredRunEnd(expired: ExpiredRun, maxRuns: number): JobResult | null {
  if (expired.cancelReason !== null) return resultWithout('cancelled', expired.cancelReason);
  if (expired.runs - expired.handbacks >= maxRuns) return abandonedAfter(expired.runs);
  return null;
}
