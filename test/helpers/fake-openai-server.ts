import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer: `json` is sent as the message content, the way a structured-output model replies. */
export interface FakeCompletion {
  content?: string | null;
  json?: unknown;
  toolCalls?: { name: string; arguments: string | Record<string, unknown> }[];
  usage?: { promptTokens: number; completionTokens: number };
  /** Answer with this HTTP error instead, e.g. 401 or 429. */
  status?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface FakeOpenAIServer {
  /** The base URL to configure, e.g. http://127.0.0.1:41234/v1. */
  readonly url: string;
  /** Every request received, in order, with its parsed JSON body. */
  readonly requests: RecordedRequest[];
  /** Scripted answers not used yet. */
  readonly remaining: number;
  enqueue(...completions: FakeCompletion[]): void;
  close(): Promise<void>;
}

/**
 * A small OpenAI-compatible server for end-to-end tests: `POST /v1/chat/completions`
 * answers from a queue, one scripted completion per request. It listens on
 * 127.0.0.1 only. An unexpected request gets a 400 (which the adapter does not
 * retry), so a test fails fast instead of waiting out backoffs.
 */
export async function startFakeOpenAIServer(completions: FakeCompletion[] = []): Promise<FakeOpenAIServer> {
  const queue = [...completions];
  const requests: RecordedRequest[] = [];
  let served = 0;

  const server = createServer(async (request, response) => {
    const body = await readJson(request);
    requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body });
    if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
      return sendError(response, 404, `fake server: no route for ${request.method} ${request.url}`);
    }
    const next = queue.shift();
    if (next === undefined) {
      return sendError(
        response,
        400,
        `fake server: no scripted completion left for request ${requests.length}`,
      );
    }
    served += 1;
    if (next.status !== undefined) return sendError(response, next.status, 'fake server: scripted error');
    sendJson(response, 200, completionFor(next, served, body));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get remaining() {
      return queue.length;
    },
    enqueue: (...more) => {
      queue.push(...more);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        // The SDK keeps connections alive; without this close() would wait for them to time out.
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** The chat.completion shape the openai SDK parses. */
function completionFor(scripted: FakeCompletion, index: number, body: unknown) {
  const content = scripted.json !== undefined ? JSON.stringify(scripted.json) : (scripted.content ?? null);
  const toolCalls = (scripted.toolCalls ?? []).map((call, callIndex) => ({
    id: `call_${index}_${callIndex}`,
    type: 'function' as const,
    function: {
      name: call.name,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    },
  }));
  const promptTokens = scripted.usage?.promptTokens ?? 100;
  const completionTokens = scripted.usage?.completionTokens ?? 20;
  const model =
    typeof body === 'object' && body !== null && 'model' in body ? String(body.model) : 'fake-model';
  return {
    id: `chatcmpl-fake-${index}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          refusal: null,
        },
        finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
        logprobs: null,
      },
    ],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
  };
}

/** The request's JSON body (its text when it is not JSON, null when empty); shared with rule-model-server. */
export async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function sendJson(response: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

function sendError(response: ServerResponse, status: number, message: string): void {
  sendJson(response, status, { error: { message, type: 'invalid_request_error', param: null, code: null } });
}
