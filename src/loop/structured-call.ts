import { z } from 'zod';
import { InvalidModelOutputError } from '../errors/index.js';
import type {
  ChatMessage,
  LanguageModel,
  ModelPurpose,
  ModelResponse,
  ToolCall,
  ToolDefinition,
} from '../model/language-model.js';
import { type Clock, realClock } from './clock.js';
import { jsonSchemaOf } from './schemas.js';
import { clip, estimateTokens } from './tokens.js';

export interface ToolBox {
  definitions: ToolDefinition[];
  run: (call: ToolCall) => Promise<string>;
  maxCalls: number;
}

export interface StructuredCall<T> {
  model: LanguageModel;
  purpose: ModelPurpose;
  messages: ChatMessage[];
  schema: z.ZodType<T>;
  schemaName: string;
  tools?: ToolBox;
  signal?: AbortSignal;
  /** Times each request for `onResponse`; the real clock unless a test brings its own. */
  clock?: Clock;
  /** Told about every response, before anything else happens with it. */
  onResponse: (
    response: ModelResponse,
    purpose: ModelPurpose,
    promptTokens: number,
    ms: number,
  ) => Promise<void>;
}

const ARGUMENT_ECHO_CHARS = 300;
const NO_TOOLS_LEFT = 'No tool calls are left. Answer now with the JSON object only.';

/**
 * Asks for a JSON answer matching `schema`, letting the model call tools
 * first (up to the box's limit), and gives it one chance to repair an answer
 * that does not parse or validate. The zod schema is the single source: it
 * validates here and becomes the JSON Schema the server is asked to follow.
 *
 * Tool calls and the structured answer never share a request: a server that
 * enforces a schema with a grammar (llama.cpp, vLLM's guided decoding) can then
 * never call a tool, and some servers refuse the two together. So requests that
 * offer tools carry no response format; once the model stops calling tools (or
 * has none left), a separate request asks for the answer with the server's best
 * structured output mode. When the last tool-phase answer already is valid JSON
 * it is taken as is, saving a slow local model a whole extra answer; when it is
 * unusable, the answer request is the repair round, so a model never gets more
 * than two tries at the JSON.
 */
export async function completeStructured<T>(call: StructuredCall<T>): Promise<T> {
  const messages = [...call.messages];
  const output = { name: call.schemaName, schema: jsonSchemaOf(call.schema) };
  const send = sender(call, messages, output);
  let { response, toolPhase } = await toolRounds(call, messages, send);

  const first = parseAnswer(response.content, call.schema);
  if (first.ok) return first.value;
  if (toolPhase && (response.content ?? '').trim() === '') {
    // Nothing to repair: the model stopped calling tools without a word. Ask for the answer itself.
    messages.push({ role: 'user', content: NO_TOOLS_LEFT });
    response = await send(call.purpose);
    const answer = parseAnswer(response.content, call.schema);
    if (answer.ok) return answer.value;
    return repair(call, messages, output.schema, response, answer.problem, send);
  }
  return repair(call, messages, output.schema, response, first.problem, send);
}

type Send = (purpose: ModelPurpose, tools?: ToolDefinition[]) => Promise<ModelResponse>;

/** Sends the conversation so far, offering tools or asking for the output format (never both), timed for `onResponse`. */
function sender<T>(
  call: StructuredCall<T>,
  messages: ChatMessage[],
  output: { name: string; schema: Record<string, unknown> },
): Send {
  const clock = call.clock ?? realClock;
  return async (purpose, tools) => {
    call.signal?.throwIfAborted();
    const started = clock.now();
    const response = await call.model.complete({
      purpose,
      messages,
      ...(tools ? { tools } : { output }),
      signal: call.signal,
    });
    await call.onResponse(response, purpose, promptTokens(messages), Math.round(clock.now() - started));
    return response;
  };
}

/**
 * The tool phase: answers the model's tool calls until it stops calling them
 * (or a round past its limit). Returns the last response, and whether tools
 * were still on offer when it came.
 */
async function toolRounds<T>(
  call: StructuredCall<T>,
  messages: ChatMessage[],
  send: Send,
): Promise<{ response: ModelResponse; toolPhase: boolean }> {
  const box =
    call.tools && call.tools.maxCalls > 0 && call.model.toolsEnabled !== false ? call.tools : undefined;
  let used = 0;
  let toolPhase = box !== undefined;
  let response = await send(call.purpose, box?.definitions);
  const maxRounds = (call.tools?.maxCalls ?? 0) + 1;
  for (let round = 0; response.toolCalls.length > 0 && round < maxRounds; round++) {
    messages.push({
      role: 'assistant',
      content: response.content,
      toolCalls: response.toolCalls.map((toolCall) => ({
        ...toolCall,
        arguments: clip(toolCall.arguments, ARGUMENT_ECHO_CHARS),
      })),
    });
    for (const toolCall of response.toolCalls) {
      const answer =
        box && used < box.maxCalls
          ? await box.run(toolCall)
          : 'Error: no tool calls are left for this attempt; answer with the JSON object now.';
      used++;
      messages.push({ role: 'tool', toolCallId: toolCall.id, content: answer });
    }
    toolPhase = box !== undefined && used < box.maxCalls;
    if (!toolPhase) messages.push({ role: 'user', content: NO_TOOLS_LEFT });
    response = await send(call.purpose, toolPhase ? box?.definitions : undefined);
  }
  return { response, toolPhase };
}

async function repair<T>(
  call: StructuredCall<T>,
  messages: ChatMessage[],
  schema: Record<string, unknown>,
  response: ModelResponse,
  problem: string,
  send: (purpose: ModelPurpose) => Promise<ModelResponse>,
): Promise<T> {
  messages.push({ role: 'assistant', content: clip(response.content ?? '', 2000) });
  messages.push({
    role: 'user',
    content:
      `That answer is not usable: ${clip(problem, 600)}\n` +
      `Reply with only a JSON object that follows this JSON Schema:\n${JSON.stringify(schema)}`,
  });
  const repaired = await send('repair');
  const second = parseAnswer(repaired.content, call.schema);
  if (second.ok) return second.value;
  throw new InvalidModelOutputError(call.purpose, second.problem, repaired.content ?? '');
}

function promptTokens(messages: ChatMessage[]): number {
  let total = 0;
  for (const message of messages) {
    total += estimateTokens(message.content ?? '');
    if (message.role === 'assistant') {
      for (const toolCall of message.toolCalls ?? []) total += estimateTokens(toolCall.arguments) + 10;
    }
  }
  return total;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

/** Accepts bare JSON, JSON in a code fence, or JSON with prose around it. */
export function parseAnswer<T>(content: string | null, schema: z.ZodType<T>): Parsed<T> {
  if (content === null || content.trim() === '') return { ok: false, problem: 'the answer was empty.' };
  const candidates = [content.trim()];
  const fenced = /```(?:json)?\s*\n([\s\S]*?)```/.exec(content);
  if (fenced?.[1]) candidates.push(fenced[1].trim());
  const first = content.indexOf('{');
  const last = content.lastIndexOf('}');
  if (first !== -1 && last > first) candidates.push(content.slice(first, last + 1));
  // The answer's opening says what the model did instead ("Sure! Here is…", a diff, a cut-off object).
  const opening = content.trim();
  let problem = `the answer is not a JSON object; it begins: ${JSON.stringify(opening.slice(0, 80))}${opening.length > 80 ? ' …' : ''}`;
  for (const candidate of candidates) {
    let value: unknown;
    try {
      value = JSON.parse(candidate);
    } catch {
      continue;
    }
    const result = schema.safeParse(value);
    if (result.success) return { ok: true, value: result.data };
    problem = `the JSON does not match the schema:\n${z.prettifyError(result.error)}`;
  }
  return { ok: false, problem };
}
