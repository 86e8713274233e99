/**
 * The verdict of a repository's own CI on a commit the App pushed: decided
 * from the workflow runs and the other apps' check suites GitHub lists for
 * that commit, and nothing else (no clock, no I/O), so the follower in
 * src/jobs only fetches, decides and writes. docs/ci-verdict.md says how it
 * is used.
 */

/** One workflow run (or check suite) on the commit, as the CodeHost lists it. */
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

/** GitHub Actions' app: its check suites are the workflow runs, judged as runs. */
export const ACTIONS_APP_SLUG = 'github-actions';

/** Another app's check suite on the commit: a CI that reports through checks rather than GitHub Actions. */
export interface CiSuite extends CiRun {
  /**
   * How many check runs the suite has. GitHub opens a suite on every push
   * for each app that may write checks, so a suite without one may be a CI
   * about to start, or an app that never runs on this repository.
   */
  checkRuns: number;
}

/**
 * What GitHub knows of a commit's CI: its workflow runs, the check suites
 * of other apps (neither the App's own nor GitHub Actions', whose suites
 * are the workflow runs), and how many workflows the repository has active.
 */
export interface CiRuns {
  runs: CiRun[];
  suites: CiSuite[];
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
  /** How many other apps' check suites judged it besides; absent in verdicts recorded before suites were followed. */
  suites?: number;
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
 * none yet though the repository has workflows, or other apps have suites,
 * that may still start). Workflow runs and the check suites that have check
 * runs are judged alike. A failure is final as soon as every one has
 * finished; a repository with no active workflow and no other app's suite
 * has no CI at once. Suites without a check run keep waiting only while
 * nothing else ran: many are opened for apps that never run.
 */
export function decideCiVerdict(sha: string, ci: CiRuns, options: DecideOptions): CiVerdict | null {
  const suites = ci.suites.filter((suite) => suite.checkRuns > 0);
  const all = [...ci.runs, ...suites];
  const count = { runs: ci.runs.length, suites: suites.length };
  if (all.length === 0) {
    const mayStart = ci.activeWorkflows + ci.suites.length > 0;
    return mayStart && !options.timedOut ? null : unknown(sha, 'no-ci', [], count);
  }
  const unfinished = all.filter((run) => run.status !== 'completed');
  if (unfinished.length > 0) return options.timedOut ? unknown(sha, 'timed-out', unfinished, count) : null;
  const failed = all.filter(hasFailed);
  if (failed.length > 0) return { verdict: 'failed', reason: null, sha, ...count, workflows: named(failed) };
  const stopped = all.filter((run) => NOT_RUN.has(run.conclusion ?? ''));
  if (stopped.length > 0) return unknown(sha, 'cancelled', stopped, count);
  return { verdict: 'passed', reason: null, sha, ...count, workflows: named(all) };
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
 * stays open (null) while a run has not finished. The Action judges
 * workflow runs only.
 */
export function decideCiVerdictNow(sha: string, runs: CiRun[]): CiVerdict | null {
  const failed = runs.filter(hasFailed);
  if (failed.length > 0)
    return { verdict: 'failed', reason: null, sha, runs: runs.length, suites: 0, workflows: named(failed) };
  return decideCiVerdict(sha, { runs, suites: [], activeWorkflows: 0 }, { timedOut: false });
}

function unknown(
  sha: string,
  reason: CiUnknownReason,
  listed: CiRun[],
  count: { runs: number; suites: number },
): CiVerdict {
  return { verdict: 'unknown', reason, sha, ...count, workflows: named(listed) };
}

function named(runs: CiRun[]): CiWorkflow[] {
  return runs.map((run) => ({ name: run.name, url: run.url, conclusion: run.conclusion }));
}
