import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readJson, sendJson } from '../../helpers/fake-openai-server.js';

/*
 * What the model-server fakes share: an HTTP server on 127.0.0.1, a tiny
 * deterministic "model", and the Chat Completions answer in both shapes
 * (one JSON body, or server-sent events). Each fake (openai.ts, azure-openai.ts,
 * llama-cpp.ts, ollama.ts, vllm.ts, quirky.ts) adds only what its server does
 * differently, with the address of the documentation that says so.
 */

export interface ChatBody {
  model?: string;
  messages?: { role: string; content?: unknown; tool_calls?: unknown[] }[];
  tools?: { type: string; function: { name: string } }[];
  tool_choice?: unknown;
  response_format?: { type: string; json_schema?: { name?: string; schema?: unknown; strict?: boolean } };
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
}

export interface RecordedModelRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: unknown;
}

/** What the fake model says for one request. */
export interface FakeAnswer {
  content?: string | null;
  toolCalls?: { name: string; arguments: Record<string, unknown> }[];
  reasoning?: string;
  refusal?: string;
}

export interface AnswerStyle {
  /** Send usage in the stream (when asked with include_usage) and in JSON bodies. */
  usage: boolean;
  /** Where the stream's usage goes: a last chunk without choices (OpenAI) or the finishing chunk. */
  usageChunk: 'separate' | 'with-finish';
  /** Characters per streamed content chunk (about one token at 4). */
  chunkCharacters?: number;
  /** Milliseconds between streamed chunks; only the benchmark's slow server sets it. */
  chunkDelayMs?: number;
  /** reasoning_content (vLLM, DeepSeek) or reasoning (Ollama); sent before the content. */
  reasoningField?: 'reasoning_content' | 'reasoning';
}

export type Route = (request: RecordedModelRequest, response: ServerResponse) => Promise<boolean> | boolean;

export interface FakeModelServer {
  /** The base URL to configure. */
  readonly url: string;
  readonly requests: RecordedModelRequest[];
  /** The chat completion requests only, bodies parsed. */
  chatBodies(): ChatBody[];
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1 that hands every request to `route`; unrouted ones get a 404. */
export async function startModelServer(route: Route, basePath = '/v1'): Promise<FakeModelServer> {
  const requests: RecordedModelRequest[] = [];
  const server = createServer((incoming, response) => {
    void (async () => {
      const url = new URL(incoming.url ?? '/', 'http://127.0.0.1');
      const recorded: RecordedModelRequest = {
        method: incoming.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: incoming.headers,
        body: await readJson(incoming),
      };
      requests.push(recorded);
      if (!(await route(recorded, response)))
        sendError(response, 404, `no route for ${recorded.method} ${url.pathname}`);
    })().catch((error: unknown) => {
      if (!response.headersSent) sendError(response, 500, String(error));
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${basePath}`,
    requests,
    chatBodies: () =>
      requests
        .filter((request) => request.path.endsWith('/chat/completions'))
        .map((request) => request.body as ChatBody),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

export function sendError(
  response: ServerResponse,
  status: number,
  message: string,
  extra: { param?: string | null; type?: string; code?: string | number | null } = {},
): void {
  sendJson(response, status, {
    error: {
      message,
      type: extra.type ?? 'invalid_request_error',
      param: extra.param ?? null,
      code: extra.code ?? null,
    },
  });
}

export { sendJson };

/**
 * The fake model: calls the first offered tool once, then, asked for JSON
 * (by response_format or by a schema written into the prompt), answers with a
 * value built from the schema; otherwise it talks. `TOOL:` or `REFUSE` in the
 * last user message let a test steer it.
 */
export function think(body: ChatBody, options: { forceJson?: boolean } = {}): FakeAnswer {
  const messages = body.messages ?? [];
  const lastUser = [...messages].reverse().find((message) => message.role === 'user');
  const lastText = typeof lastUser?.content === 'string' ? lastUser.content : '';
  if (lastText.includes('REFUSE')) return { content: null, refusal: "I'm sorry, I can't help with that." };
  const usedTool = messages.some((message) => message.role === 'tool');
  const tool = body.tools?.[0]?.function.name;
  if (tool !== undefined && !usedTool && !options.forceJson) {
    return { content: null, toolCalls: [{ name: tool, arguments: { path: 'README.md' } }] };
  }
  const schema = body.response_format?.json_schema?.schema ?? schemaInPrompt(messages);
  if (schema !== undefined || body.response_format?.type === 'json_object' || options.forceJson) {
    return { content: JSON.stringify(valueFor(schema ?? { type: 'object' })) };
  }
  if (lastText.includes('SPEAK')) return { content: `You said: ${lastText}` };
  return { content: usedTool ? 'I read README.md; it explains the failure.' : 'Hello from the fake model.' };
}

/** The schema our adapter writes into the system message when the server cannot take it (see structured-output.ts). */
function schemaInPrompt(messages: ChatBody['messages'] & object): unknown {
  for (const message of messages) {
    if (typeof message.content !== 'string') continue;
    const match = /JSON Schema[^\n]*:\n(\{.*\})\s*$/m.exec(message.content);
    if (match?.[1]) {
      try {
        return JSON.parse(match[1]);
      } catch {}
    }
  }
  return undefined;
}

/** A value that satisfies simple schemas (objects, strings, numbers, booleans, enums, arrays). */
export function valueFor(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return 'ok';
  const node = schema as Record<string, unknown>;
  if (Array.isArray(node.enum)) return node.enum[0];
  if (node.const !== undefined) return node.const;
  const type = Array.isArray(node.type) ? node.type.find((entry) => entry !== 'null') : node.type;
  if (Array.isArray(node.anyOf)) return valueFor(node.anyOf[0]);
  switch (type) {
    case 'object': {
      const properties = (node.properties ?? {}) as Record<string, unknown>;
      return Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, valueFor(value)]));
    }
    case 'array':
      return [];
    case 'boolean':
      return true;
    case 'integer':
    case 'number':
      return typeof node.minimum === 'number' ? node.minimum : 1;
    default:
      return typeof node.minLength === 'number' && node.minLength > 2 ? 'x'.repeat(node.minLength) : 'ok';
  }
}

export function estimateTokens(value: unknown): number {
  return Math.ceil(JSON.stringify(value ?? '').length / 4);
}

/** Answers a chat completion request as streamed events or one JSON body, as the request asked. */
export async function answer(
  response: ServerResponse,
  body: ChatBody,
  said: FakeAnswer,
  style: AnswerStyle,
  model = body.model ?? 'fake-model',
): Promise<void> {
  const promptTokens = estimateTokens(body.messages);
  const toolCalls = (said.toolCalls ?? []).map((call, index) => ({
    id: `call_${index}_${call.name}`,
    type: 'function' as const,
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
  const completionTokens = Math.max(1, estimateTokens((said.content ?? '') + JSON.stringify(toolCalls)));
  const usage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
  const finishReason = toolCalls.length > 0 ? 'tool_calls' : 'stop';
  const created = Math.floor(Date.now() / 1000);

  if (body.stream !== true) {
    sendJson(response, 200, {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created,
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: said.content ?? null,
            ...(style.reasoningField && said.reasoning ? { [style.reasoningField]: said.reasoning } : {}),
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
            refusal: said.refusal ?? null,
          },
          finish_reason: finishReason,
        },
      ],
      ...(style.usage ? { usage } : {}),
    });
    return;
  }

  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  const chunk = (
    delta: Record<string, unknown>,
    finish: string | null = null,
    extra: Record<string, unknown> = {},
  ) => ({
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  });
  const events: unknown[] = [chunk({ role: 'assistant', content: '' })];
  const size = style.chunkCharacters ?? 4;
  if (style.reasoningField && said.reasoning) {
    for (const piece of pieces(said.reasoning, size)) events.push(chunk({ [style.reasoningField]: piece }));
  }
  if (said.refusal) for (const piece of pieces(said.refusal, size)) events.push(chunk({ refusal: piece }));
  for (const piece of pieces(said.content ?? '', size)) events.push(chunk({ content: piece }));
  for (const [index, call] of toolCalls.entries()) {
    events.push(
      chunk({
        tool_calls: [
          { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
        ],
      }),
    );
    for (const piece of pieces(call.function.arguments, size)) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  }
  const wantsUsage = style.usage && body.stream_options?.include_usage === true;
  if (wantsUsage && style.usageChunk === 'with-finish') events.push(chunk({}, finishReason, { usage }));
  else events.push(chunk({}, finishReason));
  if (wantsUsage && style.usageChunk === 'separate') {
    events.push({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created, model, choices: [], usage });
  }
  for (const event of events) {
    if (response.destroyed) return;
    response.write(`data: ${JSON.stringify(event)}\n\n`);
    if (style.chunkDelayMs) await new Promise((resolve) => setTimeout(resolve, style.chunkDelayMs));
  }
  response.end('data: [DONE]\n\n');
}

function pieces(text: string, size: number): string[] {
  const result: string[] = [];
  for (let start = 0; start < text.length; start += size) result.push(text.slice(start, start + size));
  return result;
}

export function isChat(request: RecordedModelRequest, path = '/v1/chat/completions'): boolean {
  return request.method === 'POST' && request.path === path;
}

export function chatBody(request: RecordedModelRequest): ChatBody {
  return typeof request.body === 'object' && request.body !== null ? (request.body as ChatBody) : {};
}
