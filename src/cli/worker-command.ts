import type { JobSettings } from '../compose/settings.js';
import type { Environment } from '../config/read-environment.js';
import { SelfdebugError } from '../errors/selfdebug-error.js';
import type { OutputStream } from './output-stream.js';

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
  const { readJobSettings, readRunnerSettings } = await import('../compose/settings.js');
  let settings: JobSettings;
  try {
    settings = readJobSettings(io.env);
  } catch (error) {
    io.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  if (settings.app.queue === 'memory') {
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
    const { loadAppIdentity } = await import('../compose/app-identity.js');
    const { startJobs } = await import('../compose/start-jobs.js');
    const { auth, logger } = await loadAppIdentity(io.env);
    const jobs = startJobs({
      settings,
      runnerSettings: () => readRunnerSettings(settings.app, io.env),
      auth,
      logger,
      runsJobs: true,
    });
    io.stdout.write(
      `selfdebug worker: ${settings.app.concurrency} jobs at once from the ${settings.app.queue} queue; stop with SIGTERM\n`,
    );
    await jobs.stopped;
    return 0;
  } catch (error) {
    io.stderr.write(`${error instanceof SelfdebugError ? error.message : String(error)}\n`);
    return 1;
  }
}
