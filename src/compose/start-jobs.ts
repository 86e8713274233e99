import type { GitHubOctokit } from '../adapters/github/index.js';
import { ciSecretsDue } from '../jobs/ci-secrets-notice.js';
import type { CiVerdictFollower } from '../jobs/ci-verdict-follower.js';
import { runJobHandler } from '../jobs/job-handler.js';
import { jobLogFields } from '../jobs/job-log-fields.js';
import { type Metrics, noMetrics } from '../metrics/metrics.js';
import { costCeilingFor } from '../queue/cost-ceiling.js';
import type { Logger } from '../util/logger.js';
import { ciVerdictFollower } from './ci-verdicts.js';
import { openJobStore, runsJobsInProcess } from './open-store.js';
import { runnerDependencies } from './runner-dependencies.js';
import { type StartedJobs, serveJobs } from './serve-jobs.js';
import type { JobSettings, RunnerSettings } from './settings.js';

/** Probot's pino logger, or anything that tags a child logger per job the same way. */
export interface ProcessLogger extends Logger {
  child(bindings: Record<string, unknown>): Logger;
}

export interface StartJobsOptions {
  settings: JobSettings;
  /** Read only when this process runs jobs (see runsJobsInProcess); called before the queue opens. */
  runnerSettings: () => RunnerSettings;
  auth: (installationId: number) => Promise<GitHubOctokit>;
  logger: ProcessLogger;
  /** Whether this process runs jobs; unset, the settings decide (the App). `selfdebug worker` always does. */
  runsJobs?: boolean;
  /** Runs first on shutdown: the App lets acknowledged deliveries enqueue before the queue closes. */
  beforeStop?: () => Promise<void>;
  /** Where jobs, sandbox commands and GitHub requests are counted; nothing when unset. */
  metrics?: Metrics;
}

/**
 * The one way the App and `selfdebug worker` start and stop job processing:
 * builds the runner's ports from settings, opens the queue, starts a worker
 * when this process runs jobs, and on SIGTERM or SIGINT stops it (see
 * serveJobs). The runner is built before the queue opens, so a bad setting
 * stops the process before anything is left open.
 */
export function startJobs(options: StartJobsOptions): StartedJobs & { ciVerdicts: CiVerdictFollower } {
  const { settings, logger } = options;
  const metrics = options.metrics ?? noMetrics;
  const runsJobs = options.runsJobs ?? runsJobsInProcess(settings.app, settings.queue);
  const runner = runsJobs
    ? runnerDependencies(options.auth, options.runnerSettings(), logger, metrics)
    : null;
  const store = openJobStore(settings.app, settings.queue);
  const ciVerdicts = ciVerdictFollower(settings.app.handle, store, options.auth, metrics, logger);
  const handler = runner
    ? runJobHandler(runner, {
        ceiling: costCeilingFor(settings.app, store),
        loggerFor: (job) => logger.child(jobLogFields(job)),
        ciSecretsDue: ciSecretsDue(store),
      })
    : null;
  const started = serveJobs({
    store,
    worker: handler
      ? {
          handler,
          concurrency: settings.app.concurrency,
          maxContainers: settings.app.maxContainers,
          onRecorded: ciVerdicts.onRecorded,
        }
      : null,
    shutdownMs: settings.queue.shutdownSeconds * 1000,
    logger,
    metrics,
    beforeStop: async () => {
      ciVerdicts.stop();
      await options.beforeStop?.();
    },
  });
  // Every process that runs jobs ends the CI waits that are over, its own and those of workers gone since.
  if (handler) ciVerdicts.start();
  return { ...started, ciVerdicts };
}
