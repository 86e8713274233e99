import type { GitHubOctokit } from '../adapters/github/index.js';
import { runJobHandler } from '../jobs/job-handler.js';
import { type JobHandler, Worker } from '../jobs/worker.js';
import type { JobStore } from '../queue/job-store.js';
import type { Logger } from '../util/logger.js';
import { openJobStore, runsJobsInProcess } from './open-store.js';
import { runnerDependencies } from './runner-dependencies.js';
import type { JobSettings, RunnerSettings } from './settings.js';
import { onShutdown } from './shutdown.js';

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
}

export interface StartedJobs {
  store: JobStore;
  /** Null when this process only enqueues and `selfdebug worker` processes run the jobs. */
  worker: Worker | null;
  /** Settles once a signal has stopped the worker and closed the queue. */
  stopped: Promise<void>;
}

/**
 * The one way the App and `selfdebug worker` start and stop job processing:
 * builds the runner's ports from settings, opens the queue, starts a worker
 * when this process runs jobs, and on SIGTERM or SIGINT stops it (see
 * serveJobs). The runner is built before the queue opens, so a bad setting
 * stops the process before anything is left open.
 */
export function startJobs(options: StartJobsOptions): StartedJobs {
  const { settings, logger } = options;
  const runsJobs = options.runsJobs ?? runsJobsInProcess(settings.app, settings.queue);
  const runner = runsJobs ? runnerDependencies(options.auth, options.runnerSettings(), logger) : null;
  const store = openJobStore(settings.app, settings.queue);
  const handler = runner
    ? runJobHandler(runner, {
        loggerFor: (job) =>
          logger.child({ job: job.request.id, delivery: job.request.deliveryId, run: job.run }),
      })
    : null;
  return serveJobs({
    store,
    worker: handler
      ? { handler, concurrency: settings.app.concurrency, maxContainers: settings.app.maxContainers }
      : null,
    shutdownMs: settings.queue.shutdownSeconds * 1000,
    logger,
    ...(options.beforeStop ? { beforeStop: options.beforeStop } : {}),
  });
}

export interface ServeJobsOptions {
  store: JobStore;
  /** The worker to start, or null when this process only enqueues. */
  worker: {
    handler: JobHandler;
    concurrency: number;
    maxContainers: number;
    heartbeatMs?: number;
    pollMs?: number;
  } | null;
  shutdownMs: number;
  logger: Logger;
  beforeStop?: () => Promise<void>;
}

/**
 * Runs a store (and its worker) until the process gets SIGTERM or SIGINT;
 * then the worker stops taking jobs, waits up to `shutdownMs` for the
 * running ones, hands the rest back, the store closes and the process
 * exits (see onShutdown). Also what the fault test's worker processes run.
 */
export function serveJobs(options: ServeJobsOptions): StartedJobs {
  const { store, logger } = options;
  const worker = options.worker
    ? new Worker({
        store,
        handler: options.worker.handler,
        concurrency: options.worker.concurrency,
        maxContainers: options.worker.maxContainers,
        logger,
        ...(options.worker.heartbeatMs === undefined ? {} : { heartbeatMs: options.worker.heartbeatMs }),
        ...(options.worker.pollMs === undefined ? {} : { pollMs: options.worker.pollMs }),
      }).start()
    : null;
  if (worker) logger.info({ worker: worker.id }, 'worker started');
  const stopped = new Promise<void>((resolve) => {
    onShutdown(async () => {
      await options.beforeStop?.();
      if (worker) {
        const result = await worker.stop(options.shutdownMs);
        logger.info({ worker: worker.id, ...result }, 'worker stopped');
      }
      await store.close();
      resolve();
    }, logger);
  });
  return { store, worker, stopped };
}
