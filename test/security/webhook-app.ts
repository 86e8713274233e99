import { createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable, Writable } from 'node:stream';
import { pino } from 'pino';
import type { Probot } from 'probot';
import type { HandlerRepoConfig } from '../../src/app/dependencies.js';
import type { JobRequest } from '../../src/queue/job-request.js';
import { settleHandlers, testApp } from '../helpers/probot.js';

export const SECRET = 'webhook-secret-for-tests';

/** Mentions on, workflow runs off: no example payload needs a GitHub call unless a test mocks it. */
const CONFIG: HandlerRepoConfig = {
  allowedUsers: [],
  mentions: true,
  reviews: true,
  workflowRuns: { enabled: false, workflows: [], branches: [], maxRounds: 1 },
};

type Middleware = (request: IncomingMessage, response: ServerResponse, next?: () => void) => Promise<unknown>;

export interface HttpApp {
  middleware: Middleware;
  probot: Probot;
  enqueued: JobRequest[];
  /** Log lines at warn level and above, parsed. */
  warnings: { msg: string; problem?: string; event?: string }[];
  close(): Promise<void>;
}

/**
 * The App as GitHub reaches it: Probot's own webhook middleware (signature,
 * headers, JSON) in front of the test App of test/helpers/probot.ts (the real
 * handlers, a recording queue), with a webhook secret, a fixed configuration
 * and a logger that keeps warnings; called in-process with a request stream,
 * so nock's strict mode sees only the GitHub calls.
 */
export async function httpApp(): Promise<HttpApp> {
  const warnings: HttpApp['warnings'] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) warnings.push(JSON.parse(line));
      done();
    },
  });
  const { probot, queue, enqueued } = await testApp({
    secret: SECRET,
    log: pino({ level: 'warn' }, sink),
    repoConfigFor: async () => ({ ok: true, config: CONFIG }),
  });
  const middleware = (await probot.getNodeMiddleware()) as unknown as Middleware;
  return {
    middleware,
    probot,
    enqueued,
    warnings,
    close: async () => {
      await settleHandlers(probot);
      await queue.idle();
    },
  };
}

let deliveries = 0;

/** POSTs `body` as GitHub would: signed with SECRET unless told otherwise. Resolves to the status code. */
export async function post(
  app: HttpApp,
  event: string,
  body: string,
  options: { signature?: string | null; id?: string } = {},
): Promise<number> {
  const signature =
    options.signature === undefined
      ? `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`
      : options.signature;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-github-event': event,
    'x-github-delivery': options.id ?? `security-${++deliveries}`,
  };
  if (signature !== null) headers['x-hub-signature-256'] = signature;
  const request = Object.assign(Readable.from([Buffer.from(body)]), {
    headers,
    method: 'POST',
    url: '/api/github/webhooks',
  }) as unknown as IncomingMessage;
  let status = 0;
  const response = {
    writeHead(code: number) {
      status = code;
      return response;
    },
    end() {
      return response;
    },
  } as unknown as ServerResponse;
  await app.middleware(request, response, () => {
    status = 404;
  });
  // The answer goes out before the handler runs: wait for it, failing on its error.
  await settleHandlers(app.probot);
  return status;
}
