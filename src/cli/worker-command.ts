import type { OpsServer } from '../compose/ops-server.js';
import type { JobSettings } from '../compose/settings.js';
import type { Environment } from '../config/read-environment.js';
import { SelfdebugError } from '../errors/index.js';
import type { JobStore } from '../queue/job-store.js';
import type { OutputStream } from './output-stream.js';

const WORKER_USAGE = [
  'Usage: selfdebug worker [--metrics-port PORT]',
  '',
  'Runs jobs from the queue the App fills, until SIGTERM or Ctrl-C; then it takes no new',
  'jobs, lets running ones finish within SELFDEBUG_SHUTDOWN_SECONDS, and hands the rest back.',
  '',
  "It reads the App's environment: APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH), the model and",
  'sandbox settings, and a queue it can share with the App:',
  '  SELFDEBUG_QUEUE=sqlite  with SELFDEBUG_QUEUE_PATH (the App and its workers on one host)',
  '  SELFDEBUG_QUEUE=redis   with REDIS_URL (any number of hosts; the App only enqueues)',
  'SELFDEBUG_CONCURRENCY jobs run at once (default 2); SELFDEBUG_MAX_CONTAINERS caps the host.',
  '',
  '--metrics-port PORT (or SELFDEBUG_METRICS_PORT) serves /metrics, /healthz and /readyz on',
  'SELFDEBUG_METRICS_HOST (default 127.0.0.1); 0 picks a free port. Unset, nothing is served.',
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
  const address = metricsAddress(argv, io.env);
  if (typeof address === 'string') {
    io.stderr.write(`${address}\n${WORKER_USAGE}\n`);
    return 2;
  }
  const settings = await workerSettings(io.env);
  if (typeof settings === 'string') {
    io.stderr.write(`${settings}\n`);
    return 2;
  }
  return runWorker(settings, address, io);
}

/** The settings a worker runs with, or why it cannot run: bad settings, a queue only it sees, no App. */
async function workerSettings(env: Environment): Promise<JobSettings | string> {
  // Loaded here so `help` and `--version` never load Probot, BullMQ or SQLite.
  const { readJobSettings } = await import('../compose/settings.js');
  let settings: JobSettings;
  try {
    settings = readJobSettings(env);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  if (settings.app.queue === 'memory')
    return (
      'selfdebug worker needs a queue it shares with the App, but SELFDEBUG_QUEUE is memory. ' +
      'Set SELFDEBUG_QUEUE=sqlite (same host) or SELFDEBUG_QUEUE=redis with REDIS_URL, for the App and the worker.'
    );
  if (!env.APP_ID)
    return 'selfdebug worker acts as the GitHub App: set APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH).';
  return settings;
}

/** Runs jobs (and serves /metrics at `address`) until the worker is stopped: 0, or 1 when it could not start. */
async function runWorker(
  settings: JobSettings,
  address: { host: string; port: number } | null,
  io: WorkerIO,
): Promise<number> {
  // Closed however the worker ends, or a start that fails after it listens would keep the process alive.
  let server: OpsServer | null = null;
  try {
    const { readRunnerSettings } = await import('../compose/settings.js');
    const { loadAppIdentity } = await import('../compose/app-identity.js');
    const { startJobs } = await import('../compose/start-jobs.js');
    const { workerOperations } = await import('../compose/operations.js');
    const { auth, logger } = await loadAppIdentity(io.env);
    const operations = workerOperations();
    let store: JobStore | null = null;
    server = address && (await operations.serve(settings.app, address, () => store));
    const jobs = startJobs({
      settings,
      runnerSettings: () => readRunnerSettings(settings.app, io.env),
      auth,
      logger,
      runsJobs: true,
      metrics: operations.metrics,
    });
    io.stdout.write(
      `selfdebug worker: ${settings.app.concurrency} jobs at once from the ${settings.app.queue} queue; stop with SIGTERM\n`,
    );
    store = jobs.store;
    if (server) io.stdout.write(`selfdebug worker: metrics at ${server.url}/metrics\n`);
    await jobs.stopped;
    return 0;
  } catch (error) {
    io.stderr.write(`${error instanceof SelfdebugError ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await server?.close();
  }
}

/**
 * Where to serve /metrics: `--metrics-port` or SELFDEBUG_METRICS_PORT on
 * SELFDEBUG_METRICS_HOST (loopback unless the operator opens it, e.g. to a
 * container network). Null when no port is set; a message on misuse.
 */
export function metricsAddress(
  argv: readonly string[],
  env: Environment,
): { host: string; port: number } | null | string {
  let port = env.SELFDEBUG_METRICS_PORT;
  const rest = [...argv];
  const flag = rest.indexOf('--metrics-port');
  if (flag !== -1) port = rest.splice(flag, 2)[1] ?? '';
  if (rest.length > 0)
    return `selfdebug worker takes no arguments but --metrics-port PORT, got: ${rest.join(' ')}`;
  if (port === undefined || port === '') return flag === -1 ? null : '--metrics-port needs a port number';
  const number = Number(port);
  if (!/^\d+$/.test(port) || number > 65_535)
    return `the metrics port must be a number from 0 to 65535 (0: any free port), got "${port}"`;
  return { host: env.SELFDEBUG_METRICS_HOST?.trim() || '127.0.0.1', port: number };
}
