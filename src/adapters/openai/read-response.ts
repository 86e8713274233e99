import type { ChatCompletion } from 'openai/resources/chat/completions';
import { ModelApiError } from '../../errors/index.js';
import type { ModelResponse, ToolCall } from '../../model/language-model.js';
import type { CallDeadline } from './call-deadline.js';
import { toModelResponse } from './map-messages.js';

/**
 * Reads a chat completion answer: server-sent events when the server streams,
 * or one JSON body when it ignored `stream: true` (some proxies and old
 * servers do). Every chunk touches the deadline, reasoning tokens included, so
 * only a silent server is cut off. Usage may be missing; the caller estimates it.
 */
export async function readCompletion(
  response: Response,
  deadline: CallDeadline,
  configuredModel: string,
): Promise<ModelResponse & { sawUsage: boolean }> {
  deadline.touch();
  const type = response.headers.get('content-type') ?? '';
  if (!type.includes('text/event-stream')) {
    const text = await readAll(response, deadline);
    let completion: ChatCompletion;
    try {
      completion = JSON.parse(text) as ChatCompletion;
    } catch {
      throw new ModelApiError(
        `The model server answered with something that is not JSON (${type || 'no content type'}). ` +
          'Check SELFDEBUG_MODEL_BASE_URL (it usually ends in /v1).',
      );
    }
    return { ...toModelResponse(completion, configuredModel), sawUsage: completion.usage != null };
  }
  const state = new StreamState();
  for await (const data of events(response, deadline)) {
    if (data === '[DONE]') break;
    let chunk: StreamChunk;
    try {
      chunk = JSON.parse(data) as StreamChunk;
    } catch {
      continue;
    }
    if (chunk.error) {
      const message = typeof chunk.error.message === 'string' ? chunk.error.message : 'unknown error';
      throw new ModelApiError(`The model server failed while answering: ${message.slice(0, 500)}`, {
        retryable: true,
      });
    }
    state.add(chunk);
  }
  return state.finish(configuredModel);
}

interface StreamChunk {
  model?: string;
  choices?: {
    delta?: {
      content?: string | null;
      reasoning_content?: string | null;
      reasoning?: string | null;
      refusal?: string | null;
      tool_calls?: {
        index?: number;
        id?: string;
        function?: { name?: string; arguments?: string | Record<string, unknown> };
      }[];
    };
    finish_reason?: string | null;
  }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number } | null;
  error?: { message?: unknown };
}

class StreamState {
  #content = '';
  #sawContent = false;
  #refusal = '';
  #model = '';
  #finishReason = 'unknown';
  #usage: StreamChunk['usage'] = null;
  readonly #calls = new Map<number, { id: string; name: string; arguments: string }>();

  add(chunk: StreamChunk): void {
    if (chunk.model) this.#model = chunk.model;
    if (chunk.usage) this.#usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (choice === undefined) return;
    if (choice.finish_reason) this.#finishReason = choice.finish_reason;
    const delta = choice.delta;
    if (delta === undefined) return;
    if (typeof delta.content === 'string') {
      this.#content += delta.content;
      this.#sawContent = true;
    }
    if (typeof delta.refusal === 'string') this.#refusal += delta.refusal;
    for (const [position, call] of (delta.tool_calls ?? []).entries()) {
      const index = call.index ?? position;
      const current = this.#calls.get(index) ?? { id: '', name: '', arguments: '' };
      if (call.id) current.id = call.id;
      if (call.function?.name) current.name += call.function.name;
      const args = call.function?.arguments;
      if (typeof args === 'string') current.arguments += args;
      else if (args !== undefined && args !== null) current.arguments = JSON.stringify(args);
      this.#calls.set(index, current);
    }
  }

  finish(configuredModel: string): ModelResponse & { sawUsage: boolean } {
    const toolCalls: ToolCall[] = [...this.#calls.entries()]
      .sort(([left], [right]) => left - right)
      .map(([index, call]) => ({
        id: call.id || `call_${index}`,
        name: call.name,
        arguments: call.arguments,
      }));
    let content: string | null = this.#sawContent ? this.#content : null;
    let finishReason = this.#finishReason;
    // A refusal arrives beside an empty content; surfacing it lets the transcript show why.
    if ((content === null || content === '') && this.#refusal !== '') {
      content = this.#refusal;
      finishReason = 'refusal';
    }
    const promptTokens = this.#usage?.prompt_tokens ?? 0;
    const completionTokens = this.#usage?.completion_tokens ?? 0;
    return {
      content,
      toolCalls,
      usage: {
        promptTokens,
        completionTokens,
        totalTokens: this.#usage?.total_tokens ?? promptTokens + completionTokens,
      },
      model: this.#model || configuredModel,
      finishReason,
      sawUsage: this.#usage != null,
    };
  }
}

/** The `data:` payloads of a server-sent event stream, one per event. */
async function* events(response: Response, deadline: CallDeadline): AsyncGenerator<string> {
  let buffer = '';
  for await (const text of chunks(response, deadline)) {
    buffer += text;
    for (;;) {
      const end = /\r?\n\r?\n/.exec(buffer);
      if (end === null) break;
      const event = buffer.slice(0, end.index);
      buffer = buffer.slice(end.index + end[0].length);
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data !== '') yield data;
    }
  }
  const tail = buffer.trim();
  if (tail.startsWith('data:')) yield tail.slice(5).trim();
}

async function readAll(response: Response, deadline: CallDeadline): Promise<string> {
  let text = '';
  for await (const chunk of chunks(response, deadline)) text += chunk;
  return text;
}

/** The body as text pieces; stops (and throws the deadline's reason) when the deadline aborts. */
async function* chunks(response: Response, deadline: CallDeadline): AsyncGenerator<string> {
  const body = response.body;
  if (body === null) return;
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const cancel = () => void reader.cancel().catch(() => {});
  deadline.signal.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (deadline.signal.aborted) throw deadline.signal.reason;
      if (done) break;
      deadline.touch();
      yield decoder.decode(value, { stream: true });
    }
    const rest = decoder.decode();
    if (rest !== '') yield rest;
  } finally {
    deadline.signal.removeEventListener('abort', cancel);
    reader.releaseLock();
  }
}
