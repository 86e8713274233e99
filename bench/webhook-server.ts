import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Context, createNodeMiddleware, createProbot, type Probot, ProbotOctokit } from 'probot';
import { GitHubCodeHost } from '../src/adapters/github/index.js';
import { registerHandlers } from '../src/app/register-handlers.js';
import { repoConfigLoader } from '../src/app/repo-config-for.js';
import { MemoryQueue } from '../src/jobs/memory-queue.js';
import { newJobId } from '../src/jobs/run-job.js';

/**
 * The servers under test in bench/webhook.ts, run in a child process so the
 * load loop and the fake GitHub API (both in the parent) do not share their
 * event loop. Every side is a real Probot 14 webhook server on 127.0.0.1
 * (createNodeMiddleware + node:http); the parent talks to this process over IPC.
 */
export const SIDES = ['bare', 'ours', 'noretry', 'scheduled', 'slow', 'throttled'] as const;
export type Side = (typeof SIDES)[number];

export type ToServer =
  | { type: 'start'; secret: string; handle: string; fakes: Record<Side, string> }
  | { type: 'drain' }
  | { type: 'stop' };
export type FromServer =
  | { type: 'ready'; ports: Record<Side, number> }
  | { type: 'drained'; failures: number; cpuMicros: number }
  | { type: 'failed'; message: string };

/** As in the tests: no throttling, so the rows measure our code, not the plugin's 1 s write spacing. */
const UnthrottledOctokit = ProbotOctokit.defaults((instanceOptions: object) => ({
  ...instanceOptions,
  throttle: { enabled: false },
}));
/** Also without plugin-retry, whose per-request Bottleneck limiter costs a few timer turns per call. */
const PlainOctokit = ProbotOctokit.defaults((instanceOptions: object) => ({
  ...instanceOptions,
  throttle: { enabled: false },
  retry: { enabled: false },
}));

/** Handlers started by the `scheduled` side and not yet finished; drained between rounds. */
const pending = new Set<Promise<void>>();
let backgroundFailures = 0;
const servers: Server[] = [];

function send(message: FromServer): void {
  process.send?.(message);
}

process.on('message', (message: ToServer) => {
  void handle(message).catch((error: unknown) =>
    send({
      type: 'failed',
      message: error instanceof Error ? (error.stack ?? error.message) : String(error),
    }),
  );
});
// The parent going away (or killing us) ends the bench; never linger.
process.on('disconnect', () => process.exit(0));

async function handle(message: ToServer): Promise<void> {
  if (message.type === 'start') {
    const ports = await startAll(message);
    send({ type: 'ready', ports });
  } else if (message.type === 'drain') {
    while (pending.size > 0) await Promise.all([...pending]);
    const cpu = process.cpuUsage();
    send({ type: 'drained', failures: backgroundFailures, cpuMicros: cpu.user + cpu.system });
  } else {
    await Promise.all(
      servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      ),
    );
    process.exit(0);
  }
}

async function startAll(start: Extract<ToServer, { type: 'start' }>): Promise<Record<Side, number>> {
  const privateKey = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  }).privateKey;
  const ports = {} as Record<Side, number>;
  for (const side of SIDES) {
    const probot = createProbot({
      env: {},
      overrides: {
        appId: 123,
        privateKey,
        secret: start.secret,
        baseUrl: start.fakes[side],
        logLevel: 'warn',
        ...(side === 'throttled' ? {} : { Octokit: side === 'noretry' ? PlainOctokit : UnthrottledOctokit }),
      },
    });
    const appFn = (app: Probot) => {
      if (side === 'bare') app.on('issue_comment.created', async () => {});
      else registerHandlers(side === 'scheduled' ? detached(app) : app, dependencies(start.handle));
    };
    const middleware = await createNodeMiddleware(appFn, { probot });
    const server = createServer((request, response) => {
      void middleware(request, response, () => {
        response.writeHead(404).end();
      });
    });
    server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    ports[side] = (server.address() as AddressInfo).port;
  }
  return ports;
}

/** What src/index.ts builds, except that the queue's runner does nothing: no job runs. */
function dependencies(handle: string) {
  const codeHostFor = (context: Context) => new GitHubCodeHost(context.octokit, context.repo());
  return {
    handle,
    queue: new MemoryQueue(async () => {}, 2),
    codeHostFor,
    repoConfigFor: repoConfigLoader(codeHostFor),
    newJobId,
    now: () => new Date(),
  };
}

/**
 * The app as registerHandlers sees it, except that `on` starts each handler
 * and returns at once, so Probot's middleware answers before the handler's
 * GitHub calls finish. Probot 14 has no option for this; it is what
 * "acknowledge first, work after" would cost.
 */
function detached(app: Probot): Probot {
  type Listener = (context: unknown) => Promise<void>;
  const register = app.on as unknown as (event: unknown, listener: Listener) => void;
  const on = (event: unknown, listener: Listener) =>
    register(event, async (context) => {
      const work: Promise<void> = listener(context)
        .catch(() => {
          // registerHandlers' guard has logged it already.
          backgroundFailures++;
        })
        .then(() => {
          pending.delete(work);
        });
      pending.add(work);
    });
  return new Proxy(app, {
    get(target, property) {
      if (property === 'on') return on;
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
