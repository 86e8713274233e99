import type { CostCeilingCheck } from '../queue/cost-ceiling.js';
import type { ClaimedJob, JobResult } from '../queue/job-store.js';
import { NO_LINKS, resultWithout } from '../queue/job-store.js';
import type { LeaseGuard } from '../queue/lease-guard.js';
import type { Logger } from '../util/logger.js';
import { guardCodeHost, resumableWorkspaces, slottedSandboxes } from './guarded-ports.js';
import { CEILING_TITLE, reportRefusal } from './report-refusal.js';
import { reportTargetOf } from './report-target.js';
import { type JobRunnerDependencies, type RunJobResult, runJob } from './run-job.js';
import type { JobHandler } from './worker.js';

/** Reasons are kept short in the history: they are for a status page, the full text is in the comments. */
const MAX_REASON = 500;

export interface HandlerOptions {
  /** A logger for one job (Probot's child logger tagged with the job and delivery). */
  loggerFor?: (job: ClaimedJob) => Logger;
  /** The runner; tests may pass their own. */
  run?: typeof runJob;
  /** The operator's cost ceiling, checked again here for jobs queued before it was reached. */
  ceiling?: CostCeilingCheck | null;
  /** The job store's answer to "is the CI secrets warning still due here?" (see JobRunnerDependencies.ciSecretsDue). */
  ciSecretsDue?: (repository: string) => Promise<boolean>;
}

/**
 * The worker's handler for real jobs: runs the job runner with its ports
 * wrapped for the job's lease (see guarded-ports.ts) and turns what it
 * returns into the history record's result.
 */
export function runJobHandler(base: JobRunnerDependencies, options: HandlerOptions = {}): JobHandler {
  const run = options.run ?? runJob;
  return async (job, { signal, guard }) => {
    const logger = options.loggerFor?.(job) ?? base.logger;
    const guarded = guardDependencies(base, guard, logger);
    const dependencies = options.ciSecretsDue ? { ...guarded, ciSecretsDue: options.ciSecretsDue } : guarded;
    const verdict = await options.ceiling?.check(job.request.installationId);
    if (verdict?.refused) {
      // Refused before anything starts: no checkout, no container, no model call.
      const host = await dependencies.codeHostFor(job.request);
      await reportRefusal(reportTargetOf(job.request), host, {
        title: CEILING_TITLE,
        message: verdict.message,
      });
      logger.warn({ job: job.request.id, spentUsd: verdict.spentUsd }, 'job refused: cost ceiling reached');
      return resultWithout('refused', short(verdict.message));
    }
    return jobResult(await run(job.request, signal, dependencies), signal);
  };
}

export function guardDependencies(
  base: JobRunnerDependencies,
  guard: LeaseGuard,
  logger: Logger,
): JobRunnerDependencies {
  return {
    ...base,
    logger,
    codeHostFor: async (request) => guardCodeHost(await base.codeHostFor(request), guard),
    workspaces: resumableWorkspaces(base.workspaces, guard, logger),
    sandboxProviderFor: (config) => slottedSandboxes(base.sandboxProviderFor(config), guard),
  };
}

export function jobResult(ran: RunJobResult, signal: AbortSignal): JobResult {
  const { view, problem } = ran;
  const links = view
    ? { pullRequest: view.pullRequestUrl, statusComment: view.statusCommentUrl, checkRun: view.checkRunUrl }
    : NO_LINKS;
  const spend = view?.finished?.total ?? view?.total;
  const common = {
    attempts: view?.finished?.attempts ?? view?.attempts.length ?? 0,
    tokens: spend?.usage.totalTokens ?? 0,
    costUsd: spend?.costUsd ?? 0,
    links,
    fixSha: view?.fixSha ?? null,
    ...(ran.ciSecretsShown ? { ciSecretsShown: true } : {}),
  };
  if (view?.finished)
    return { ...common, outcome: view.finished.outcome, reason: short(view.finished.reason) };
  if (signal.aborted) {
    const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason);
    return { ...common, outcome: 'cancelled', reason: short(reason) };
  }
  return { ...common, outcome: problem?.kind ?? 'failed', reason: short(problem?.message ?? null) };
}

function short(text: string | null): string | null {
  return text === null || text.length <= MAX_REASON ? text : `${text.slice(0, MAX_REASON - 1)}…`;
}
