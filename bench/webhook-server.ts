import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Context, createNodeMiddleware, createProbot, type Probot, ProbotOctokit } from 'probot';
import { GitHubCodeHost } from '../src/adapters/github/index.js';
import { SqliteJobStore } from '../src/adapters/sqlite/sqlite-store.js';
import { cachedRepoConfig } from '../src/app/config-cache.js';
import type { InFlight } from '../src/app/in-flight.js';
import { registerHandlers } from '../src/app/register-handlers.js';
import { repoConfigLoader } from '../src/app/repo-config-for.js';
import { newJobId } from '../src/jobs/run-job.js';

/**
 * The servers under test in bench/webhook.ts, run in a child process so the
 * load loop and the fake GitHub API (both in the parent) do not share their
 * event loop. Every side is a real Probot 14 webhook server on 127.0.0.1
 * (createNodeMiddleware + node:http); the parent talks to this process over IPC.
 */
export const SIDES = ['bare', 'ours', 'awaited', 'slow', 'throttled'] as const;
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
/** Each side's handlers still running after the answer; drained between rounds, off the clock. */
const inFlight: InFlight[] = [];
let backgroundFailures = 0;
const servers: Server[] = [];
const queueDirectory = mkdtempSync(join(tmpdir(), 'selfdebug-bench-webhook-'));
process.on('exit', () => rmSync(queueDirectory, { recursive: true, force: true }));

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
    await Promise.all(inFlight.map((each) => each.idle()));
    for (const each of inFlight) backgroundFailures += each.takeFailures().length;
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
        ...(side === 'throttled' ? {} : { Octokit: UnthrottledOctokit }),
      },
    });
    const appFn = (app: Probot) => {
      if (side === 'bare') app.on('issue_comment.created', async () => {});
      else
        inFlight.push(
          registerHandlers(app, dependencies(start.handle), {
            acknowledge: side === 'awaited' ? 'after-handlers' : 'first',
          }),
        );
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

/** What src/index.ts builds (the default SQLite queue, a file of its own per side), with no worker: no job runs. */
function dependencies(handle: string) {
  const codeHostFor = (context: Context) => new GitHubCodeHost(context.octokit, context.repo());
  return {
    handle,
    queue: new SqliteJobStore(join(queueDirectory, `${randomUUID()}.sqlite`)),
    codeHostFor,
    repoConfigFor: cachedRepoConfig(repoConfigLoader(codeHostFor)),
    newJobId,
    now: () => new Date(),
  };
}
