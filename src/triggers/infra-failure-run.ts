import type { InfraFailure } from '../ci-logs/index.js';
import type { CodeHost } from '../code-host/code-host.js';
import { GitHubApiError, JobRefusedError } from '../errors/index.js';

/** What the App did about a run whose infrastructure failed. */
export type RerunOutcome =
  /** It asked GitHub to re-run the failed jobs. */
  | 'started'
  /** The run is already a re-run: the App re-runs a run's failed jobs once, on its first attempt. */
  | 'already-rerun'
  /** GitHub refused: the App lacks the Actions write permission in this repository. */
  | 'not-permitted'
  /** GitHub answered otherwise (the run is gone, or still running). */
  | 'failed';

/** A failed run that failed for its infrastructure, where, and what the App did about it. */
export interface InfraFailureNotice extends InfraFailure {
  job: string | null;
  workflowName: string;
  rerun: RerunOutcome;
}

/**
 * A failed run whose log shows its infrastructure failed (ci-logs'
 * classifyInfraFailure): the job stops before the sandbox and the model,
 * and the report (src/report/infra-failure.ts) says what failed and that
 * nothing was spent. The message is the plain fallback for logs and history.
 */
export class NotTheCodeError extends JobRefusedError {
  constructor(readonly notice: InfraFailureNotice) {
    super(
      `The workflow "${notice.workflowName}" failed for its infrastructure (${notice.kind}), not its code: ` +
        `${notice.evidence} No model attempt was spent.`,
    );
  }
}

/**
 * Re-runs the run's failed jobs, only on its first attempt: a second failure
 * of the same kind is not the App's to keep re-running. GitHub answers 403
 * where the installation lacks the Actions write permission; the report
 * then asks people to re-run it themselves.
 */
export async function rerunOnce(
  host: CodeHost,
  run: { runId: number; runAttempt: number },
): Promise<RerunOutcome> {
  if (run.runAttempt > 1) return 'already-rerun';
  try {
    await host.rerunFailedJobs(run.runId);
    return 'started';
  } catch (error) {
    if (!(error instanceof GitHubApiError)) throw error;
    return error.status === 403 && !error.retryable ? 'not-permitted' : 'failed';
  }
}
