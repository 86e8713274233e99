import { loadAppConfig } from '../config/app-config.js';
import { loadSandboxConfig } from '../config/load-config.js';
import type { Environment } from '../config/read-environment.js';
import {
  EngineUnreachableError,
  ImageNotFoundError,
  ModelAuthError,
  RuntimeMissingError,
} from '../errors/index.js';
import { loadQueueConfig } from '../queue/queue-config.js';
import { checkGitHubApp } from './doctor-github-check.js';
import type { DoctorPorts } from './doctor-ports.js';
import { type CheckResult, fail, messageOf, ok, skip } from './doctor-result.js';
import { checkSetupSettings } from './doctor-setup-check.js';

export type { CheckResult } from './doctor-result.js';

/**
 * The checks of `selfdebug doctor`, which the App also runs at start-up. Each
 * is a small function of the environment and the ports it is given, so a
 * test can fail any of them without a Docker engine, a model server or GitHub.
 */

export type { DoctorPorts } from './doctor-ports.js';

/** Docker engine, image and sandbox limits: three rows, the later ones skipped when an earlier one fails. */
async function checkSandbox(
  env: Environment,
  ports: DoctorPorts,
  options: { containerSpec?: boolean } = {},
): Promise<CheckResult[]> {
  let image: string;
  let kind: 'docker' | 'local';
  let runtime: string | undefined;
  try {
    ({ image, kind, runtime } = loadSandboxConfig(env));
  } catch (error) {
    const detail = 'the sandbox settings are invalid';
    return [
      fail('docker engine', detail, messageOf(error)),
      ...notChecked(['sandbox image', 'sandbox limits']),
    ];
  }
  if (kind === 'local') {
    const why = 'SELFDEBUG_SANDBOX=local: commands run unsandboxed, as this user';
    const fix = 'unset SELFDEBUG_SANDBOX (or set it to docker) before running untrusted code';
    return [skip('docker engine', why, fix), ...notChecked(['sandbox image', 'sandbox limits'], why)];
  }
  try {
    await ports.pingSandbox();
  } catch (error) {
    return pingFailure(error, image, runtime);
  }
  const rows = [ok('docker engine', 'answers'), ok('sandbox image', `${image} is on the engine`)];
  if (options.containerSpec === false) return rows;
  return [...rows, await limitsRow(ports, runtime), ...(await sidecarRow(ports))];
}

/** Setup's forwarder and holder run from the sidecar image, whatever image a job names. */
async function sidecarRow(ports: DoctorPorts): Promise<CheckResult[]> {
  if (!ports.checkSidecarImage) return [];
  try {
    return [ok('sidecar image', await ports.checkSidecarImage())];
  } catch (error) {
    return [fail('sidecar image', 'setup cannot reach the network without it', messageOf(error))];
  }
}

/** What a failed ping says: no engine, no runtime, or an image it could not pull. */
function pingFailure(error: unknown, image: string, runtime?: string): CheckResult[] {
  if (error instanceof EngineUnreachableError) {
    return [
      fail('docker engine', 'does not answer', error.message),
      ...notChecked(['sandbox image', 'sandbox limits'], 'the engine did not answer'),
    ];
  }
  if (error instanceof RuntimeMissingError) {
    return [
      ok('docker engine', 'answers'),
      ok('sandbox image', `${image} is on the engine`),
      fail(
        'sandbox limits',
        `SELFDEBUG_SANDBOX_RUNTIME=${runtime ?? ''} is not registered with the engine`,
        error.message,
      ),
    ];
  }
  // selfdebug's own executor image is built, not pulled: a registry's answer about it misleads.
  const built = /^selfdebug-executor(:|$)/.test(image) && !(error instanceof ImageNotFoundError);
  const hint = built
    ? '\nselfdebug-executor is built here, not pulled: `npm run image` builds selfdebug-executor:latest ' +
      'offline from the Debian mirror (or `docker build -t selfdebug-executor docker/executor`).'
    : '';
  return [
    ok('docker engine', 'answers'),
    fail('sandbox image', `${image} is missing and could not be pulled`, `${messageOf(error)}${hint}`),
    ...notChecked(['sandbox limits'], 'no image to try them with'),
  ];
}

async function limitsRow(ports: DoctorPorts, runtime: string | undefined): Promise<CheckResult> {
  try {
    await ports.tryContainerSpec();
    // gVisor runs the loop only: setup and services need the shared loopback it hides (docs/sandbox.md#gvisor).
    const under = runtime
      ? `runtime ${runtime}${/runsc|gvisor/i.test(runtime) ? ' (gVisor: the loop; setup on runc, no services)' : ''}`
      : "the engine's default runtime";
    return ok(
      'sandbox limits',
      `the engine accepts the container (memory, CPU, pids, tmpfs workspace) under ${under}`,
    );
  } catch (error) {
    return fail(
      'sandbox limits',
      'the engine refused the sandbox container',
      `${messageOf(error)} — use an engine with cgroup v2 and the local volume driver (docker info), ` +
        'or lower SELFDEBUG_SANDBOX_MEMORY_MB / SELFDEBUG_SANDBOX_CPUS / SELFDEBUG_SANDBOX_PIDS_LIMIT.',
    );
  }
}

function notChecked(names: string[], why = 'fix the row above first'): CheckResult[] {
  return names.map((name) => skip(name, `not checked: ${why}`));
}

async function checkModel(ports: DoctorPorts): Promise<CheckResult> {
  try {
    return await ports.probeModel();
  } catch (error) {
    const detail = error instanceof ModelAuthError ? 'no usable API key' : 'cannot be asked';
    return fail('model server', detail, messageOf(error));
  }
}

function checkWebhookSecret(env: Environment): CheckResult {
  if (env.WEBHOOK_SECRET?.trim()) return ok('webhook secret', 'WEBHOOK_SECRET is set');
  return fail(
    'webhook secret',
    'WEBHOOK_SECRET is not set',
    'set WEBHOOK_SECRET to the secret in the App settings (Webhook secret), so deliveries can be verified',
  );
}

/** SQLite: the file's folder can be written to; Redis: the server answers; memory: a warning only. */
async function checkQueue(
  env: Environment,
  ports: DoctorPorts,
  options: { redis?: boolean } = {},
): Promise<CheckResult> {
  const name = 'queue';
  let app: ReturnType<typeof loadAppConfig>;
  let path: string;
  try {
    app = loadAppConfig(env);
    path = loadQueueConfig(env).path;
  } catch (error) {
    return fail(name, 'the queue settings are invalid', messageOf(error));
  }
  switch (app.queue) {
    case 'memory':
      return skip(
        name,
        'SELFDEBUG_QUEUE=memory: queued jobs are lost on restart',
        'set SELFDEBUG_QUEUE=sqlite (the default) to keep them',
      );
    case 'sqlite':
      return checkSqliteQueue(path, ports);
    case 'redis':
      return checkRedisQueue(app.redisUrl ?? '', ports, options);
  }
}

async function checkSqliteQueue(path: string, ports: DoctorPorts): Promise<CheckResult> {
  try {
    await ports.checkWritable(path);
    return ok('queue', `sqlite at ${path} (writable)`);
  } catch (error) {
    return fail(
      'queue',
      `sqlite at ${path} cannot be written (${(error as { code?: string }).code ?? messageOf(error)})`,
      'set SELFDEBUG_QUEUE_PATH to a file in a folder this user can write to, or create that folder',
    );
  }
}

async function checkRedisQueue(
  redisUrl: string,
  ports: DoctorPorts,
  options: { redis?: boolean },
): Promise<CheckResult> {
  const shown = displayRedis(redisUrl);
  if (options.redis === false) return ok('queue', `redis at ${shown} (not asked)`);
  try {
    await ports.pingRedis(redisUrl);
    return ok('queue', `redis at ${shown} answers`);
  } catch (error) {
    return fail(
      'queue',
      `redis at ${shown} does not answer (${messageOf(error)})`,
      'start Redis or fix REDIS_URL (redis://host:6379, with the password if it needs one)',
    );
  }
}

/** REDIS_URL may hold a password: only the host and port are shown. */
function displayRedis(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(REDIS_URL)';
  }
}

/** WEBHOOK_PROXY_URL (smee.io) delivers webhooks to a machine GitHub cannot reach; Probot needs smee-client for it. */
function checkWebhookProxy(env: Environment, ports: DoctorPorts): CheckResult {
  const name = 'webhook proxy';
  const url = env.WEBHOOK_PROXY_URL?.trim();
  if (!url) {
    return skip(
      name,
      'WEBHOOK_PROXY_URL is not set: GitHub must reach this host itself',
      'on a machine GitHub cannot reach, create a channel at https://smee.io, set WEBHOOK_PROXY_URL to it ' +
        'and run `npm install smee-client@5`',
    );
  }
  let protocol = '';
  try {
    protocol = new URL(url).protocol;
  } catch {}
  if (protocol !== 'https:' && protocol !== 'http:') {
    return fail(
      name,
      `WEBHOOK_PROXY_URL "${url}" is not a URL`,
      'set it to a channel URL such as https://smee.io/abc123',
    );
  }
  if (!ports.canLoad('smee-client')) {
    return fail(
      name,
      'WEBHOOK_PROXY_URL is set, but the smee-client package is not installed',
      'run `npm install smee-client@5` where selfdebug is installed (Probot loads it to forward webhooks)',
    );
  }
  return ok(name, `${url} (smee-client installed)`);
}

export interface DoctorScope {
  /** Ask the model server (a few tiny requests). */
  model: boolean;
  /** Ask the engine: ping, and pull the image if it is missing. */
  docker: boolean;
  /** Create (never start) a container with the real spec; false skips that row. */
  containerSpec?: boolean;
  /** Ask Redis when SELFDEBUG_QUEUE=redis. */
  redis?: boolean;
}

/** Every check, in the table's order. */
export async function runDoctorChecks(
  env: Environment,
  ports: DoctorPorts,
  scope: DoctorScope = { model: true, docker: true },
): Promise<CheckResult[]> {
  const [sandbox, setup, model, github, queue] = await Promise.all([
    scope.docker
      ? checkSandbox(env, ports, scope.containerSpec === false ? { containerSpec: false } : {})
      : Promise.resolve([]),
    checkSetupSettings(env, ports),
    scope.model ? checkModel(ports) : Promise.resolve(undefined),
    checkGitHubApp(env, ports),
    checkQueue(env, ports, { redis: scope.redis !== false }),
  ]);
  return [
    ...sandbox,
    setup,
    ...(model ? [model] : []),
    github,
    checkWebhookSecret(env),
    queue,
    checkWebhookProxy(env, ports),
  ];
}
