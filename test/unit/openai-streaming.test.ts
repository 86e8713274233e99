import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLanguageModel, ServerProfiles } from '../../src/adapters/openai/index.js';
import { parseModelConfig } from '../../src/config/model-config.js';
import { ManualTimers } from '../helpers/manual-timers.js';

/** A server whose every streamed chunk the test writes itself. */
async function startDrivenServer() {
  const streams: ServerResponse[] = [];
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (request.url !== '/v1/chat/completions') {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      streams.push(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    streams,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const token = (text: string) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`;
const finish = `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 30, total_tokens: 35 } })}\n\ndata: [DONE]\n\n`;

let closeServer: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closeServer?.();
  closeServer = undefined;
});

async function setUp(settings: { idleTimeoutSeconds: number; timeoutSeconds: number; maxRetries?: number }) {
  const server = await startDrivenServer();
  closeServer = server.close;
  const timers = new ManualTimers();
  const sleeps: number[] = [];
  const model = createLanguageModel(
    parseModelConfig({ baseUrl: server.url, contextTokens: 8192, maxRetries: 2, ...settings }),
    {
      timers,
      profiles: new ServerProfiles(),
      sleep: async (milliseconds) => {
        sleeps.push(milliseconds);
      },
      random: () => 0,
    },
  );
  // Waits on what the adapter has done, never on how fast: on a loaded machine reading a chunk can take seconds.
  const patiently = { timeout: 30_000, interval: 2 };
  /** Writes a piece of the answer and waits until the adapter has read it (it re-arms its idle timer). */
  const send = async (stream: ServerResponse, text: string) => {
    const before = timers.armed;
    stream.write(text);
    await vi.waitFor(() => expect(timers.armed).toBeGreaterThan(before), patiently);
  };
  const nextStream = async (index: number) => {
    await vi.waitFor(() => expect(server.streams.length).toBeGreaterThan(index), patiently);
    return server.streams[index]!;
  };
  return { model, timers, sleeps, send, nextStream, server };
}

const request = { purpose: 'explain' as const, messages: [{ role: 'user' as const, content: 'Explain.' }] };

describe('OpenAIChatModel streaming and time limits', () => {
  it('never cuts off a slow model that keeps producing tokens, however long it takes in total', async () => {
    const { model, timers, sleeps, send, nextStream, server } = await setUp({
      idleTimeoutSeconds: 10,
      timeoutSeconds: 3600,
    });
    const answer = model.complete(request);
    const stream = await nextStream(0);
    // 30 tokens, one every 9 s: 270 s in all, 27 times the idle limit, never 10 s of silence.
    for (let index = 0; index < 30; index++) {
      timers.advance(9_000);
      await send(stream, token(`t${index} `));
    }
    stream.end(finish);

    const response = await answer;
    expect(response.content).toBe(Array.from({ length: 30 }, (_, index) => `t${index} `).join(''));
    expect(response.usage).toEqual({ promptTokens: 5, completionTokens: 30, totalTokens: 35 });
    expect(timers.now).toBe(270_000);
    expect(timers.fired).toEqual([]);
    expect(server.streams).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('aborts a stream that goes silent for the idle limit and retries it', async () => {
    const { model, timers, sleeps, send, nextStream, server } = await setUp({
      idleTimeoutSeconds: 10,
      timeoutSeconds: 3600,
    });
    const answer = model.complete(request);
    const stalled = await nextStream(0);
    await send(stalled, token('half an '));
    timers.advance(9_999);
    expect(timers.fired).toEqual([]);
    timers.advance(1);
    expect(timers.fired).toEqual([10_000]);

    const fresh = await nextStream(1);
    await send(fresh, token('whole answer'));
    fresh.end(finish);
    expect((await answer).content).toBe('whole answer');
    expect(server.streams).toHaveLength(2);
    expect(sleeps).toEqual([500]);
  });

  it('stops a call at its total cap even while tokens flow, and does not retry it', async () => {
    const { model, timers, sleeps, send, nextStream, server } = await setUp({
      idleTimeoutSeconds: 10,
      timeoutSeconds: 60,
    });
    const answer = model.complete(request).catch((error: unknown) => error);
    const stream = await nextStream(0);
    for (let index = 0; index < 6; index++) {
      timers.advance(9_000);
      await send(stream, token('more '));
    }
    timers.advance(6_000);

    const error = await answer;
    expect(error).toMatchObject({ code: 'model-api', retryable: false });
    expect((error as Error).message).toMatch(/still answering after 60 s/);
    expect(server.streams).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });
});
