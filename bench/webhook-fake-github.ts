import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A tiny GitHub REST API on 127.0.0.1 for bench/webhook.ts: just the calls an
 * `@selfdebug fix` comment makes before the webhook is acknowledged. It counts
 * what it is asked, per route, and can add a fixed delay to every answer to
 * stand in for the real API's round trip.
 */
export type FakeRoute =
  | 'token'
  | 'config (repo)'
  | 'config (org .github)'
  | 'permission'
  | 'reaction'
  | 'other';

export interface FakeGitHub {
  url: string;
  counts: Map<FakeRoute, number>;
  close(): Promise<void>;
}

export async function startFakeGitHub(delayMs = 0): Promise<FakeGitHub> {
  const counts = new Map<FakeRoute, number>();
  const server = createServer((request, response) => {
    // Drain the body; none of the answers depend on it.
    request.resume();
    request.once('end', () => {
      const [route, status, body] = answer(request);
      counts.set(route, (counts.get(route) ?? 0) + 1);
      const send = () => reply(response, status, body);
      if (delayMs > 0) setTimeout(send, delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(request: IncomingMessage): [FakeRoute, number, unknown] {
  const path = decodeURIComponent(new URL(request.url ?? '/', 'http://github.test').pathname);
  const method = request.method ?? 'GET';
  if (method === 'POST' && /^\/app\/installations\/\d+\/access_tokens$/.test(path)) {
    return [
      'token',
      201,
      {
        token: 'ghs_bench',
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        permissions: { issues: 'write', contents: 'read', metadata: 'read' },
        repository_selection: 'all',
      },
    ];
  }
  const config = /^\/repos\/[^/]+\/([^/]+)\/contents\/\.github\/selfdebug\.yml$/.exec(path);
  if (method === 'GET' && config) {
    return [
      config[1] === '.github' ? 'config (org .github)' : 'config (repo)',
      404,
      { message: 'Not Found', documentation_url: 'https://docs.github.com/rest/repos/contents' },
    ];
  }
  if (method === 'GET' && /^\/repos\/[^/]+\/[^/]+\/collaborators\/[^/]+\/permission$/.test(path)) {
    return ['permission', 200, { permission: 'write', role_name: 'write', user: { login: 'Codertocat' } }];
  }
  if (method === 'POST' && /^\/repos\/[^/]+\/[^/]+\/issues\/comments\/\d+\/reactions$/.test(path)) {
    return ['reaction', 201, { id: 1, content: 'eyes', created_at: new Date().toISOString() }];
  }
  return ['other', 404, { message: `Not Found: ${method} ${path}` }];
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}
