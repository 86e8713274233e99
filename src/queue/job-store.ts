import type { CiVerdict } from '../ci-verdict/ci-verdict.js';
import type { LoopOutcome } from '../loop/events.js';
import type { JobQueue, JobRequest, JobTrigger } from './job-request.js';

export type { StaleTarget } from './job-request.js';

/**
 * The queue port as workers see it. Handlers only enqueue, cancel and ask
 * for the latest request (JobQueue); workers claim a job under a lease,
 * renew it while they work, and complete it with a history record. Three
 * adapters: memory (tests, one process, lost on restart), SQLite (durable,
 * one host) and BullMQ on Redis (several hosts). One contract suite
 * (test/contract/queue-contract.ts) runs against each.
 *
 * Exactly-once rests on the lease: every write a worker makes (renew,
 * checkpoint, complete, release) names its lease token, and the store
 * refuses it once another worker has claimed the job after the lease
 * expired. The worker stops writing to GitHub before its lease can expire
 * (see LeaseGuard), so two workers never act for one job at the same time.
 */
export interface JobStore extends JobQueue {
  /** How long a claim lasts without a renewal; a crashed worker's job is taken over after this. */
  readonly leaseMs: number;
  /**
   * Takes the oldest job that may run now: waiting, or held under an expired
   * lease, and not behind a running job of the same repository and branch
   * (serialKeyOf). Null when there is none. May wait briefly for one.
   */
  claim(workerId: string): Promise<Lease | null>;
  /** Resolves when a job may have become claimable, or after `ms`, or when `signal` aborts. */
  waitForWork(ms: number, signal?: AbortSignal): Promise<void>;
  /** Finished jobs, newest first. */
  history(query?: HistoryQuery): Promise<JobRecord[]>;
  /** Jobs not finished yet: waiting (including delayed) and running (including expired leases). */
  counts(): Promise<{ waiting: number; running: number }>;
  /** The jobs counts() counts, oldest first: for the operator's jobs page. */
  openJobs(): Promise<OpenJob[]>;
  /**
   * What an installation's finished jobs cost since `sinceMs` (epoch ms), in
   * USD. Read from a spend ledger that history pruning does not touch: the
   * cost ceiling must see every job of its period even when the history
   * keeps fewer (SPEND_LEDGER_MS says how far back it reaches).
   */
  spentUsd(installationId: number, sinceMs: number): Promise<number>;
  /**
   * Adds the verdict of the repository's CI to a finished job's record (the
   * job that pushed `verdict.sha`). The first verdict stands: false, and
   * nothing changed, when the record already has one or is gone.
   */
  recordCiVerdict(jobId: string, verdict: CiVerdict): Promise<boolean>;
  /**
   * The finished job that pushed `sha` to `repository` (`owner/name`, any
   * case), however old, as long as the history keeps it; the newest one if
   * several did. Looked up directly, not by reading the history.
   */
  pushedBy(repository: string, sha: string): Promise<JobRecord | null>;
  /**
   * Sets when the wait for a finished job's CI verdict ends (epoch ms on the
   * follower's clock), or null when it waits no more. Kept on the record, so
   * whichever worker runs next ends the wait (docs/ci-verdict.md). False,
   * and nothing changed, when the record is gone or already has its verdict.
   */
  awaitCiVerdict(jobId: string, untilMs: number | null): Promise<boolean>;
  /** Finished jobs still without a CI verdict whose wait ended by `untilMs`, soonest first, at most `limit`. */
  dueCiVerdicts(untilMs: number, limit: number): Promise<JobRecord[]>;
  close(): Promise<void>;
}

export interface HistoryQuery {
  /** `owner/name`, any case. */
  repository?: string;
  limit?: number;
}

/** What a worker took: the request, and what earlier runs of it left. */
export interface ClaimedJob {
  request: JobRequest;
  /** 1 on the first claim; more after a crash or a hand-back. */
  run: number;
  /** Steps earlier runs recorded (Lease.checkpoint), for resuming instead of repeating. */
  checkpoints: Readonly<Record<string, string>>;
}

export type LeaseStatus = { state: 'held' } | { state: 'cancelled'; reason: string } | { state: 'lost' };

export interface Lease {
  readonly job: ClaimedJob;
  /** Extends the lease; says whether it is still held and whether someone cancelled the job. */
  renew(): Promise<LeaseStatus>;
  /** Records a finished step under the lease (ignored once the lease is lost). */
  checkpoint(key: string, value: string): Promise<void>;
  /** Takes one of `max` container slots shared by every worker of the store's host; false when none is free. */
  acquireContainer(max: number): Promise<boolean>;
  releaseContainer(): Promise<void>;
  /** Marks the job done and stores its record; false (and nothing stored) when the lease was lost. */
  complete(result: JobResult): Promise<boolean>;
  /** Hands the job back unfinished (graceful shutdown): the next claim runs it again at once. */
  release(): Promise<void>;
  /** Adapters that can tell at once (memory) call this on cancel; the others are seen by renew(). */
  onCancel?(listener: (reason: string) => void): void;
}

/**
 * How a job ended: the loop's outcome, or why the loop did not get to one.
 * `done` is for runners that report no outcome of their own (tests' plain runners).
 */
export type JobOutcome = LoopOutcome | 'refused' | 'failed' | 'cancelled' | 'abandoned' | 'done';

/** What the worker knows when a job ends; the store adds the times, the runs and the request. */
export interface JobResult {
  outcome: JobOutcome;
  reason: string | null;
  /** Loop attempts (edit → run) the job made. */
  attempts: number;
  tokens: number;
  costUsd: number;
  links: JobLinks;
  /** The commit the job pushed (a fix on a branch or a pull request), whose CI is followed; absent when it pushed none. */
  fixSha?: string | null;
  /**
   * Set when the job's check run showed the CI secrets warning, or the job
   * found nothing (or nothing more) to warn of: the warning is then no
   * longer due on the repository (docs/ci-secrets.md).
   */
  ciSecretsShown?: boolean;
}

export interface JobLinks {
  pullRequest: string | null;
  statusComment: string | null;
  checkRun: string | null;
}

/** One finished job, kept for status pages and metrics until the retention limit drops it. */
export interface JobRecord extends JobResult {
  id: string;
  deliveryId: string;
  /** The GitHub App installation the job ran for: whose cost ceiling it counts against. */
  installationId: number;
  repository: string;
  issueNumber: number | null;
  trigger: JobTrigger['kind'];
  /** How many times a worker took the job. */
  runs: number;
  enqueuedAt: string;
  startedAt: string | null;
  finishedAt: string;
  /** From the first claim to the end; 0 when it never started. */
  durationMs: number;
  /** From enqueue to the first claim. */
  waitMs: number;
  /** What the repository's CI said of the pushed fix, once it has (JobStore.recordCiVerdict). */
  ciVerdict?: CiVerdict;
  /** While the fix waits for its CI verdict: when the wait ends, epoch ms (JobStore.awaitCiVerdict); gone with the verdict. */
  ciWaitUntil?: number;
}

/** A job not finished yet, as the jobs page lists it. */
export interface OpenJob {
  id: string;
  installationId: number;
  repository: string;
  issueNumber: number | null;
  trigger: JobTrigger['kind'];
  /** `running` while a worker holds it (an expired lease may still show as running until the next claim). */
  state: 'waiting' | 'running';
  runs: number;
  enqueuedAt: string;
  startedAt: string | null;
}

/**
 * How far back the spend ledger reaches: longer than the longest cost period
 * (a month), so the ceiling never misses a job of its period, and short
 * enough that the ledger stays small.
 */
export const SPEND_LEDGER_MS = 62 * 24 * 60 * 60 * 1000;

/** How long finished jobs are kept, and how long a delivery id or dedupe key is remembered. */
export interface Retention {
  maxRecords: number;
  maxAgeMs: number;
  dedupeMs: number;
}

export const DEFAULT_RETENTION: Retention = {
  maxRecords: 10_000,
  maxAgeMs: 30 * 24 * 60 * 60 * 1000,
  dedupeMs: 30 * 24 * 60 * 60 * 1000,
};

export interface StoreOptions {
  leaseMs?: number;
  /** Runs a job may start before it counts as abandoned (a job that kills its worker every time). */
  maxRuns?: number;
  retention?: Partial<Retention>;
  now?: () => number;
}

export const DEFAULT_LEASE_MS = 30_000;
export const DEFAULT_MAX_RUNS = 5;

export const NO_LINKS: JobLinks = { pullRequest: null, statusComment: null, checkRun: null };

/** A result for a job that ended without running the loop (cancelled while waiting, abandoned). */
export function resultWithout(outcome: JobOutcome, reason: string | null): JobResult {
  return { outcome, reason, attempts: 0, tokens: 0, costUsd: 0, links: NO_LINKS };
}
