/**
 * The verdict of a repository's own CI on a commit the App pushed: decided
 * from the workflow runs GitHub lists for that commit, and nothing else (no
 * clock, no I/O), so the follower in src/jobs only fetches, decides and
 * writes. docs/ci-verdict.md says how it is used.
 */

/** One workflow run on the commit, as the CodeHost lists it. */
export interface CiRun {
  id: number;
  /** The workflow's name (or its file, when the run has no name). */
  name: string;
  /** The run's page, for the reader to click. */
  url: string;
  /** `queued`, `in_progress`, `waiting`, `requested`, `pending` or `completed`. */
  status: string;
  /** Set once completed: `success`, `failure`, `cancelled`, `skipped`, `timed_out`, … */
  conclusion: string | null;
}

/** What GitHub knows of a commit's CI: its runs, and how many workflows the repository has active at all. */
export interface CiRuns {
  runs: CiRun[];
  activeWorkflows: number;
}

export type CiVerdictKind = 'passed' | 'failed' | 'unknown';

/** Why a verdict is `unknown`: the repository has no CI for the commit, it did not finish in time, or it was stopped. */
type CiUnknownReason = 'no-ci' | 'timed-out' | 'cancelled';

/** A workflow a verdict names: the failed ones of a failure, the unfinished ones of a timeout. */
export interface CiWorkflow {
  name: string;
  url: string;
  conclusion: string | null;
}

export interface CiVerdict {
  verdict: CiVerdictKind;
  /** Set for `unknown` only. */
  reason: CiUnknownReason | null;
  /** The commit judged: the fix the App pushed. */
  sha: string;
  /** How many workflow runs judged it. */
  runs: number;
  /** The workflows behind a failure (failed) or a timeout (unfinished); every run for a pass. */
  workflows: CiWorkflow[];
}

/** Conclusions that say the code is wrong; `cancelled`, `stale` and `action_required` say nothing of it. */
const FAILED = new Set(['failure', 'timed_out', 'startup_failure']);
const NOT_RUN = new Set(['cancelled', 'stale', 'action_required']);

export interface DecideOptions {
  /** The wait is over: what has not finished by now makes the verdict `unknown`. */
  timedOut: boolean;
}

/**
 * The verdict on `sha`, or null while it is still open (runs unfinished, or
 * none yet though the repository has workflows that may still start). A
 * failure is final as soon as every run has finished; a repository with no
 * active workflow has no CI at once.
 */
export function decideCiVerdict(sha: string, ci: CiRuns, options: DecideOptions): CiVerdict | null {
  const { runs } = ci;
  if (runs.length === 0) {
    return ci.activeWorkflows === 0 || options.timedOut ? unknown(sha, 'no-ci', [], 0) : null;
  }
  const unfinished = runs.filter((run) => run.status !== 'completed');
  if (unfinished.length > 0)
    return options.timedOut ? unknown(sha, 'timed-out', unfinished, runs.length) : null;
  const failed = runs.filter(hasFailed);
  if (failed.length > 0)
    return { verdict: 'failed', reason: null, sha, runs: runs.length, workflows: named(failed) };
  const stopped = runs.filter((run) => NOT_RUN.has(run.conclusion ?? ''));
  if (stopped.length > 0) return unknown(sha, 'cancelled', stopped, runs.length);
  return { verdict: 'passed', reason: null, sha, runs: runs.length, workflows: named(runs) };
}

/** Whether a finished run says the code is wrong. */
export function hasFailed(run: CiRun): boolean {
  return run.status === 'completed' && FAILED.has(run.conclusion ?? '');
}

/**
 * The verdict as a judge that cannot wait sees it now: the Action, from a
 * run on the commit (docs/ci-verdict.md, "The Action"). A failure decides at
 * once, since no later run turns it into a pass; no run at all is no CI,
 * since GitHub lists every run an event starts (queued) before any of its
 * steps runs; anything else is decided as decideCiVerdict decides it, and
 * stays open (null) while a run has not finished.
 */
export function decideCiVerdictNow(sha: string, runs: CiRun[]): CiVerdict | null {
  const failed = runs.filter(hasFailed);
  if (failed.length > 0)
    return { verdict: 'failed', reason: null, sha, runs: runs.length, workflows: named(failed) };
  return decideCiVerdict(sha, { runs, activeWorkflows: 0 }, { timedOut: false });
}

function unknown(sha: string, reason: CiUnknownReason, listed: CiRun[], runs: number): CiVerdict {
  return { verdict: 'unknown', reason, sha, runs, workflows: named(listed) };
}

function named(runs: CiRun[]): CiWorkflow[] {
  return runs.map((run) => ({ name: run.name, url: run.url, conclusion: run.conclusion }));
}
