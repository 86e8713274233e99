import { type JobHandler, Worker, type WorkerOptions } from '../jobs/worker.js';
import type { Metrics } from '../metrics/metrics.js';
import type { JobStore } from '../queue/job-store.js';
import type { Logger } from '../util/logger.js';
import { onShutdown } from './shutdown.js';

/*
 * Apart from start-jobs.ts, which builds the runner's adapters: the fault
 * test's worker processes run this with their own ports and should not pay
 * for loading Probot, OpenAI, BullMQ and SQLite at every start.
 */

export interface StartedJobs {
  store: JobStore;
  /** Null when this process only enqueues and `selfdebug worker` processes run the jobs. */
  worker: Worker | null;
  /** Settles once a signal has stopped the worker and closed the queue. */
  stopped: Promise<void>;
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
    onRecorded?: WorkerOptions['onRecorded'];
  } | null;
  shutdownMs: number;
  logger: Logger;
  /** Told of every job the worker takes and finishes. */
  metrics?: Metrics;
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
        ...(options.metrics ? { metrics: options.metrics } : {}),
        ...(options.worker.heartbeatMs === undefined ? {} : { heartbeatMs: options.worker.heartbeatMs }),
        ...(options.worker.pollMs === undefined ? {} : { pollMs: options.worker.pollMs }),
        ...(options.worker.onRecorded ? { onRecorded: options.worker.onRecorded } : {}),
      }).start()
    : null;
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
  // Announced once SIGTERM is handled: whoever waits for this line may stop the worker at once.
  if (worker) logger.info({ worker: worker.id }, 'worker started');
  return { store, worker, stopped };
}
