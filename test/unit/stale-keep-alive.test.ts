import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Octokit } from '@octokit/rest';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useReconnectingFetch } from '../../src/adapters/github/reconnecting-octokit.js';
import { reconnectingFetch } from '../../src/adapters/http/reconnecting-fetch.js';
import { OpenAIChatModel } from '../../src/adapters/openai/openai-chat-model.js';
import { parseModelConfig } from '../../src/config/model-config.js';

/**
 * The race behind "fetch failed … other side closed": a server closes an idle
 * keep-alive connection (Node's after 5 s, uvicorn's after 5 s, a proxy's
 * whenever it likes) while the client, its own idle timer not yet run (a busy
 * event loop, or a timeout longer than the server's), sends the next request
 * on it. This server makes the race certain: it answers the first request of
 * each connection with keep-alive, and closes the connection, unanswered, when
 * a second request arrives on it. fetch then has no response and rejects.
 */
interface StaleServer {
  url: string;
  /** Connections accepted, and requests the server closed instead of answering. */
  connections: number;
  closedUnanswered: number;
  close(): Promise<void>;
}

async function startStaleServer(
  answer: (request: IncomingMessage, response: ServerResponse, body: string) => void,
): Promise<StaleServer> {
  const served = new WeakMap<Socket, number>();
  const state = { connections: 0, closedUnanswered: 0 };
  const server: Server = createServer((request, response) => {
    const socket = request.socket;
    const count = (served.get(socket) ?? 0) + 1;
    served.set(socket, count);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (count > 1) {
        // As if its idle timer had fired the moment the request went out.
        state.closedUnanswered += 1;
        socket.destroy();
        return;
      }
      answer(request, response, Buffer.concat(chunks).toString('utf8'));
    });
  });
  server.on('connection', () => {
    state.connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get connections() {
      return state.connections;
    },
    get closedUnanswered() {
      return state.closedUnanswered;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const json = (response: ServerResponse, status: number, value: unknown) => {
  const body = JSON.stringify(value);
  response
    .writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
    .end(body);
};

let server: StaleServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('a keep-alive connection the server closed as the next request went out', () => {
  it('fails a bare fetch with "other side closed" (the flake, reproduced)', async () => {
    server = await startStaleServer((_request, response) => json(response, 200, { ok: true }));
    expect(await (await fetch(`${server.url}/one`)).json()).toEqual({ ok: true });
    await poolHasReleased();
    const failure = await fetch(`${server.url}/two`).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TypeError);
    expect(String((failure as Error).message)).toBe('fetch failed');
    expect(causeCodes(failure)).toContain('UND_ERR_SOCKET');
    expect(server.closedUnanswered).toBe(1);
  });

  it('is survived by reconnectingFetch: a GET is sent again on a new connection', async () => {
    server = await startStaleServer((request, response) => json(response, 200, { path: request.url }));
    const fetchAgain = reconnectingFetch();
    expect(await (await fetchAgain(`${server.url}/one`)).json()).toEqual({ path: '/one' });
    await poolHasReleased();
    expect(await (await fetchAgain(`${server.url}/two`)).json()).toEqual({ path: '/two' });
    expect(server.closedUnanswered).toBe(1);
    expect(server.connections).toBe(2);
  });

  it('does not send a POST again unless the caller says it has no side effects', async () => {
    server = await startStaleServer((_request, response, body) => json(response, 200, { body }));
    const idempotentOnly = reconnectingFetch();
    await (await idempotentOnly(`${server.url}/a`, { method: 'POST', body: 'first' })).text();
    await poolHasReleased();
    await expect(idempotentOnly(`${server.url}/a`, { method: 'POST', body: 'second' })).rejects.toThrow(
      'fetch failed',
    );

    const sideEffectFree = reconnectingFetch({ methods: 'any' });
    await (await sideEffectFree(`${server.url}/b`, { method: 'POST', body: 'third' })).text();
    await poolHasReleased();
    const again = await sideEffectFree(`${server.url}/b`, { method: 'POST', body: 'fourth' });
    expect(await again.json()).toEqual({ body: 'fourth' });
  });

  it('does not send again a request whose body was a stream', async () => {
    server = await startStaleServer((_request, response) => json(response, 200, {}));
    const fetchAgain = reconnectingFetch({ methods: 'any' });
    await (await fetchAgain(`${server.url}/a`)).text();
    await poolHasReleased();
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('once'));
        controller.close();
      },
    });
    await expect(
      fetchAgain(`${server.url}/a`, { method: 'PUT', body: stream, duplex: 'half' } as RequestInit),
    ).rejects.toThrow('fetch failed');
  });

  it('keeps the model client going with no API retries left (SELFDEBUG_MODEL_MAX_RETRIES=0)', async () => {
    server = await startStaleServer((request, response) => {
      if (request.url?.endsWith('/models')) return json(response, 200, { object: 'list', data: [] });
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = {
        id: 'c',
        object: 'chat.completion.chunk',
        created: 0,
        model: 'm',
        choices: [{ index: 0, delta: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
      };
      response.end(`data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`);
    });
    const model = new OpenAIChatModel(
      parseModelConfig({
        baseUrl: `${server.url}/v1`,
        model: 'm',
        apiKey: 'none',
        maxRetries: 0,
        contextTokens: 8192,
      }),
    );
    const ask = () => model.complete({ purpose: 'explain', messages: [{ role: 'user', content: 'hi' }] });
    expect((await ask()).content).toBe('hello');
    await poolHasReleased();
    expect((await ask()).content).toBe('hello');
    expect(server.closedUnanswered).toBe(1);
  });

  it('hooks an Octokit once, however often the App wraps the same event’s Octokit', () => {
    const before = vi.fn();
    const octokit = { hook: { before } };
    expect(useReconnectingFetch(useReconnectingFetch(octokit))).toBe(octokit);
    expect(before).toHaveBeenCalledTimes(1);
    const options: { request?: Record<string, unknown> } = {};
    before.mock.calls[0]![1](options);
    expect(typeof options.request?.fetch).toBe('function');
    // A fetch the caller chose (tests, the job-log reader) is kept.
    const chosen = { request: { fetch: 'mine' } };
    before.mock.calls[0]![1](chosen);
    expect(chosen.request.fetch).toBe('mine');
  });

  it('keeps the App’s Octokit going on GETs without waiting for its retry plugin', async () => {
    server = await startStaleServer((request, response) => json(response, 200, { url: request.url }));
    const octokit = useReconnectingFetch(new Octokit({ baseUrl: server.url }));
    expect((await octokit.request('GET /repos/{owner}/{repo}', { owner: 'o', repo: 'r' })).data).toEqual({
      url: '/repos/o/r',
    });
    await poolHasReleased();
    expect((await octokit.request('GET /repos/{owner}/{repo}', { owner: 'o', repo: 's' })).data).toEqual({
      url: '/repos/o/s',
    });
    expect(server.closedUnanswered).toBe(1);
  });
});

/**
 * undici hands a connection back to its pool a full event-loop turn after the
 * response ends (client-h1.js, onMessageComplete); the next request reuses it.
 */
async function poolHasReleased(): Promise<void> {
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
}

function causeCodes(error: unknown): string[] {
  const codes: string[] = [];
  for (let current = error, depth = 0; current instanceof Object && depth < 5; depth++) {
    if ('code' in current && typeof current.code === 'string') codes.push(current.code);
    current = 'cause' in current ? current.cause : undefined;
  }
  return codes;
}
