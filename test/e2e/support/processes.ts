import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { until } from '../../helpers/until.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const APP_MAIN = fileURLToPath(new URL('./app-main.ts', import.meta.url));
const CLI_MAIN = fileURLToPath(new URL('../../../src/cli/main.ts', import.meta.url));

/** What the App and its workers share: the GitHub stand-in, the model, the queue and the sandbox. */
export interface ProcessSettings {
  githubHost: string;
  appId: number;
  privateKey: string;
  webhookSecret: string;
  modelUrl: string;
  queuePath: string;
  image: string;
  /** More variables, e.g. SELFDEBUG_CONCURRENCY. */
  env?: Record<string, string>;
}

/** The environment an operator would set, pointed at this machine. */
export function environmentFor(settings: ProcessSettings): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    ...(process.env.DOCKER_HOST ? { DOCKER_HOST: process.env.DOCKER_HOST } : {}),
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    APP_ID: String(settings.appId),
    PRIVATE_KEY: settings.privateKey,
    WEBHOOK_SECRET: settings.webhookSecret,
    GHE_HOST: settings.githubHost,
    GHE_PROTOCOL: 'http',
    SELFDEBUG_GIT_LOOPBACK_HTTP: 'true',
    SELFDEBUG_QUEUE: 'sqlite',
    SELFDEBUG_QUEUE_PATH: settings.queuePath,
    SELFDEBUG_MODEL_BASE_URL: settings.modelUrl,
    SELFDEBUG_MODEL: 'rule-model',
    SELFDEBUG_MODEL_MAX_RETRIES: '0',
    SELFDEBUG_SANDBOX: 'docker',
    SELFDEBUG_SANDBOX_IMAGE: settings.image,
    // The stand-in world has no public registries: a workflow's setup-python and pip steps could not run here.
    SELFDEBUG_DERIVE_ENVIRONMENT: 'false',
    SELFDEBUG_ALLOWED_IMAGES: settings.image,
    SELFDEBUG_LEASE_SECONDS: '5',
    SELFDEBUG_SHUTDOWN_SECONDS: '5',
    ...settings.env,
  };
}

/** A child process whose output is kept, for the test's failure messages and for secret checks. */
export class Child {
  output = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(
    readonly name: string,
    readonly process: ChildProcess,
  ) {
    const keep = (chunk: Buffer) => {
      this.output += chunk.toString('utf8');
    };
    process.stdout?.on('data', keep);
    process.stderr?.on('data', keep);
    this.exited = new Promise((resolve) => process.once('exit', (code, signal) => resolve({ code, signal })));
  }

  get running(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  /** Sends `signal` and waits for the exit (SIGKILL after `graceMs`). */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 15_000): Promise<void> {
    if (!this.running) return;
    this.process.kill(signal);
    const timer = setTimeout(() => this.process.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** The last lines of output, for assertion messages. */
  tail(lines = 40): string {
    return `${this.name}:\n${this.output.split('\n').slice(-lines).join('\n')}`;
  }
}

function spawnTsx(name: string, args: string[], env: Record<string, string>): Child {
  return new Child(
    name,
    spawn(process.execPath, ['--import', 'tsx', ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

/** The App (Probot's server) on 127.0.0.1; it only enqueues unless `inProcessWorker`. */
export class AppProcess {
  private constructor(
    readonly child: Child,
    readonly url: string,
    private readonly secret: string,
  ) {}

  static async start(
    settings: ProcessSettings,
    options: { inProcessWorker?: boolean } = {},
  ): Promise<AppProcess> {
    const port = await freePort();
    const child = spawnTsx('app', [APP_MAIN], {
      ...environmentFor(settings),
      HOST: '127.0.0.1',
      PORT: String(port),
      SELFDEBUG_IN_PROCESS_WORKER: options.inProcessWorker ? 'true' : 'false',
    });
    const url = `http://127.0.0.1:${port}`;
    const answers = async () => {
      if (!child.running) throw new Error(`the App exited at start-up\n${child.tail()}`);
      return requestOnce(`${url}/ping`, 'GET', {}, '').then(
        (response) => response.status === 200,
        () => false,
      );
    };
    try {
      await until('the App to answer /ping', answers, {
        timeoutMs: 60_000,
        intervalMs: 200,
        context: () => child.tail(),
      });
    } catch (error) {
      await child.stop('SIGKILL');
      throw error;
    }
    return new AppProcess(child, url, settings.webhookSecret);
  }

  /** POSTs a signed delivery as GitHub does; returns the status and how long the answer took. */
  async deliver(
    event: string,
    payload: object,
    id: string = randomUUID(),
  ): Promise<{ status: number; ms: number; id: string }> {
    const body = JSON.stringify(payload);
    const signature = `sha256=${createHmac('sha256', this.secret).update(body).digest('hex')}`;
    const started = performance.now();
    const response = await requestOnce(
      `${this.url}/api/github/webhooks`,
      'POST',
      {
        'content-type': 'application/json',
        'x-github-event': event,
        'x-github-delivery': id,
        'x-hub-signature-256': signature,
        'user-agent': 'GitHub-Hookshot/e2e',
      },
      body,
    );
    return { status: response.status, ms: performance.now() - started, id };
  }
}

/**
 * One request on a connection of its own, as GitHub delivers webhooks: the
 * test plays GitHub here, not a client of ours. (A pooled keep-alive
 * connection that the App's server closes as a request goes out on it fails
 * with "other side closed"; the App's and the worker's own clients send such
 * a request again, src/adapters/http/reconnecting-fetch.ts, and
 * test/unit/stale-keep-alive.test.ts reproduces the race.)
 */
function requestOnce(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** `selfdebug worker` as a separate process. */
export function startWorker(settings: ProcessSettings, name = 'worker'): Child {
  return spawnTsx(name, [CLI_MAIN, 'worker'], environmentFor(settings));
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
