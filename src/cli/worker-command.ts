import type { AppConfig } from '../config/app-config.js';
import type { Environment } from '../config/read-environment.js';
import { SelfdebugError } from '../errors/selfdebug-error.js';
import { onShutdown } from '../jobs/shutdown.js';
import { type JobHandler, Worker } from '../jobs/worker.js';
import type { JobStore } from '../queue/job-store.js';
import type { QueueConfig } from '../queue/queue-config.js';
import type { Logger } from '../util/logger.js';
import type { OutputStream } from './main.js';

export const WORKER_USAGE = [
  'Usage: selfdebug worker',
  '',
  'Runs jobs from the queue the App fills, until SIGTERM or Ctrl-C; then it takes no new',
  'jobs, lets running ones finish within SELFDEBUG_SHUTDOWN_SECONDS, and hands the rest back.',
  '',
  "It reads the App's environment: APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH), the model and",
  'sandbox settings, and a queue it can share with the App:',
  '  SELFDEBUG_QUEUE=sqlite  with SELFDEBUG_QUEUE_PATH (the App and its workers on one host)',
  '  SELFDEBUG_QUEUE=redis   with REDIS_URL (any number of hosts; the App only enqueues)',
  'SELFDEBUG_CONCURRENCY jobs run at once (default 2); SELFDEBUG_MAX_CONTAINERS caps the host.',
].join('\n');

export interface WorkerIO {
  stdout: OutputStream;
  stderr: OutputStream;
  env: Environment;
}

/**
 * `selfdebug worker`: a process that only runs jobs. Returns 0 after a clean
 * stop, 1 when it could not start, 2 on misuse (arguments, settings, or a
 * queue no other process can see).
 */
export async function runWorkerCommand(argv: readonly string[], io: WorkerIO): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout.write(`${WORKER_USAGE}\n`);
    return 0;
  }
  if (argv.length > 0) {
    io.stderr.write(`selfdebug worker takes no arguments, got: ${argv.join(' ')}\n${WORKER_USAGE}\n`);
    return 2;
  }
  // Loaded here so `help` and `--version` never load Probot, BullMQ or SQLite.
  const { loadAppConfig } = await import('../config/app-config.js');
  const { loadQueueConfig } = await import('../queue/queue-config.js');
  let appConfig: AppConfig;
  let queueConfig: QueueConfig;
  try {
    appConfig = loadAppConfig(io.env);
    queueConfig = loadQueueConfig(io.env);
  } catch (error) {
    io.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  if (appConfig.queue === 'memory') {
    io.stderr.write(
      'selfdebug worker needs a queue it shares with the App, but SELFDEBUG_QUEUE is memory. ' +
        'Set SELFDEBUG_QUEUE=sqlite (same host) or SELFDEBUG_QUEUE=redis with REDIS_URL, for the App and the worker.\n',
    );
    return 2;
  }
  if (!io.env.APP_ID) {
    io.stderr.write(
      'selfdebug worker acts as the GitHub App: set APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH).\n',
    );
    return 2;
  }
  try {
    const { createProbot } = await import('probot');
    const { runnerDependencies } = await import('../jobs/runner-dependencies.js');
    const { runJobHandler } = await import('../jobs/job-handler.js');
    const { openJobStore } = await import('../jobs/open-store.js');
    const probot = createProbot({ env: io.env });
    // Probot sets up its logger and Octokit asynchronously; loading an empty app waits for that.
    await probot.load(() => {});
    const runner = runnerDependencies((id) => probot.auth(id), appConfig, probot.log);
    const store = openJobStore(appConfig, queueConfig);
    io.stdout.write(
      `selfdebug worker: ${appConfig.concurrency} jobs at once from the ${appConfig.queue} queue; stop with SIGTERM\n`,
    );
    await runWorker({
      store,
      handler: runJobHandler(runner, {
        loggerFor: (job) =>
          probot.log.child({ job: job.request.id, delivery: job.request.deliveryId, run: job.run }),
      }),
      concurrency: appConfig.concurrency,
      maxContainers: appConfig.maxContainers,
      shutdownMs: queueConfig.shutdownSeconds * 1000,
      logger: probot.log,
    });
    return 0;
  } catch (error) {
    io.stderr.write(`${error instanceof SelfdebugError ? error.message : String(error)}\n`);
    return 1;
  }
}

export interface RunWorkerOptions {
  store: JobStore;
  handler: JobHandler;
  concurrency: number;
  maxContainers: number;
  shutdownMs: number;
  logger: Logger;
  heartbeatMs?: number;
  pollMs?: number;
}

/**
 * Runs a worker until the process gets SIGTERM or SIGINT; then it stops
 * taking jobs, waits up to `shutdownMs` for the running ones, hands the
 * rest back, closes the store and exits the process (see onShutdown).
 * Shared by `selfdebug worker` and the worker processes of the fault test.
 */
export function runWorker(options: RunWorkerOptions): Promise<void> {
  const worker = new Worker({
    store: options.store,
    handler: options.handler,
    concurrency: options.concurrency,
    maxContainers: options.maxContainers,
    logger: options.logger,
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
    ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
  }).start();
  options.logger.info({ worker: worker.id }, 'worker started');
  return new Promise((resolve) => {
    onShutdown(async () => {
      const stopped = await worker.stop(options.shutdownMs);
      options.logger.info({ worker: worker.id, ...stopped }, 'worker stopped');
      await options.store.close();
      resolve();
    }, options.logger);
  });
}
