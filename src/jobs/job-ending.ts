import { JobCancelledError, JobRefusedError, SelfdebugError } from '../errors/index.js';
import type { JobView } from '../report/index.js';
import { renderInfraFailure, setupFailureMarkdown } from '../report/index.js';
import { EnvironmentSetupError } from '../sandbox/setup-error.js';
import { NotTheCodeError } from '../triggers/index.js';
import type { Logger } from '../util/logger.js';
import type { Delivery } from './execute-delivery.js';
import type { JobEnding, JobEventSink } from './job-events.js';
import type { JobTarget } from './resolve-target.js';

/** What the job's history keeps: the report's view (null when nothing ran), and why it stopped early. */
export interface RunJobResult {
  view: JobView | null;
  problem: { kind: 'refused' | 'failed'; message: string } | null;
  /** The job's check run showed the CI secrets warning, or there was none (more) to show (ci-secrets-notice.ts). */
  ciSecretsShown?: boolean;
}

/** How a job's run came out: its delivery, or the error that stopped it (and its target, once known). */
export type JobOutcome = { delivered: Delivery } | { stopped: unknown; target: JobTarget | null };

/**
 * The job's last step: its report hears how it ended and finishes (the
 * final comment and the check run), and the history gets its result. An
 * error that is no SelfdebugError is a bug: reported like any failure, then
 * thrown on.
 */
export async function closeJob(
  outcome: JobOutcome,
  report: JobEventSink,
  job: { request: { id: string; headSha: string | null }; logger: Logger },
): Promise<RunJobResult> {
  const ending = endingOf(outcome, job.request.headSha);
  if ('stopped' in outcome && ending.kind === 'failed') {
    job.logger.error({ job: job.request.id, error: String(outcome.stopped) }, 'job failed');
  }
  const view = await report({ type: 'job-ended', ending });
  if ('stopped' in outcome && !(outcome.stopped instanceof SelfdebugError)) throw outcome.stopped;
  return { view, problem: problemOf(ending) };
}

/** An outcome as the report tells it; a cancellation before the target is known is a failure to start. */
function endingOf(outcome: JobOutcome, requestSha: string | null): JobEnding {
  if ('delivered' in outcome) return { kind: 'delivered', delivery: outcome.delivered };
  const { stopped: error, target } = outcome;
  const headSha = target?.headSha ?? requestSha;
  if (error instanceof NotTheCodeError) {
    const { title, message } = renderInfraFailure(error.notice);
    return { kind: 'refused', message, headSha, title };
  }
  if (error instanceof JobRefusedError) return { kind: 'refused', message: error.message, headSha };
  if (error instanceof JobCancelledError && target !== null)
    return { kind: 'cancelled', reason: error.message };
  const message = error instanceof SelfdebugError ? error.message : `Unexpected error: ${String(error)}`;
  // A failed setup step shows its output and hosts as Markdown; the plain message would run its lines together.
  const shown = error instanceof EnvironmentSetupError ? setupFailureMarkdown(error) : message;
  return { kind: 'failed', message, shown, headSha };
}

function problemOf(ending: JobEnding): RunJobResult['problem'] {
  if (ending.kind === 'refused') return { kind: 'refused', message: ending.message };
  return ending.kind === 'failed' ? { kind: 'failed', message: ending.message } : null;
}
