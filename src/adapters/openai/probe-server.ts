import { SelfdebugError } from '../../errors/index.js';
import { MINIMUM_CONTEXT_TOKENS, promptTokenBudgetFor } from '../../model/context-window.js';
import type { ModelResponse } from '../../model/language-model.js';
import type { ServerFacts } from './discover-context.js';
import type { OpenAIChatModel } from './openai-chat-model.js';

/** One line of `selfdebug doctor --model`. */
export interface ProbeCheck {
  name: 'reachable' | 'model listed' | 'tools' | 'json_schema' | 'context length' | 'tokens/s';
  /** undefined: could not be checked (the server does not say, or an earlier check failed). */
  ok: boolean | undefined;
  detail: string;
  /** What to do about it; given whenever ok is not true. */
  fix?: string;
  /** Whether selfdebug cannot work until it is fixed. */
  blocking: boolean;
}

export interface ProbeOptions {
  now?: () => number;
  signal?: AbortSignal;
}

const PING_TOOL = {
  name: 'ping',
  description: 'Answers pong. Call it when asked to.',
  parameters: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
};

const OK_SCHEMA = {
  type: 'object',
  properties: { ok: { type: 'boolean' }, word: { type: 'string' } },
  required: ['ok', 'word'],
  additionalProperties: false,
};

/**
 * Asks a model server what selfdebug needs, with a handful of tiny requests:
 * a plain answer (reachable, speed), the model list, one tool call, one
 * json_schema answer, and the context window. What it learns (refused tools,
 * a weaker structured output mode, the window) stays in the model's server
 * profile, so the same process uses it right away.
 */
export async function probeModelServer(
  model: OpenAIChatModel,
  options: ProbeOptions = {},
): Promise<ProbeCheck[]> {
  const now = options.now ?? (() => performance.now());
  const signal = options.signal;
  const started = now();
  let plain: ModelResponse;
  try {
    plain = await model.complete({
      purpose: 'explain',
      messages: [{ role: 'user', content: 'Count from 1 to 20, separated by spaces, and nothing else.' }],
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    return unreachable(model, error, signal);
  }
  const seconds = Math.max((now() - started) / 1000, 0.001);
  const reachable: ProbeCheck = {
    name: 'reachable',
    ok: true,
    detail: `answered in ${formatSeconds(seconds)}`,
    blocking: false,
  };
  const facts = await model.serverFacts(signal);
  return [
    reachable,
    listedCheck(model.model, facts),
    await toolsCheck(model, signal),
    await jsonSchemaCheck(model, signal),
    await contextCheck(model, facts, signal),
    speedCheck(plain, seconds),
  ];
}

/** No answer to the first request: a model name to fix when the server lists others, else the server. */
async function unreachable(
  model: OpenAIChatModel,
  error: unknown,
  signal: AbortSignal | undefined,
): Promise<ProbeCheck[]> {
  // A server that lists its models but not ours answered; the model name is what to fix.
  const facts = await model.serverFacts(signal);
  if (facts.listed === 'not-listed')
    return [
      { name: 'reachable', ok: true, detail: 'GET /models answered', blocking: false },
      notListed(model.model, facts.models, true),
    ];
  const fix = error instanceof SelfdebugError || error instanceof Error ? error.message : String(error);
  return [{ name: 'reachable', ok: false, detail: 'no answer to a one-line request', fix, blocking: true }];
}

function listedCheck(name: string, facts: ServerFacts): ProbeCheck {
  if (facts.listed === 'listed')
    return { name: 'model listed', ok: true, detail: `GET /models lists "${name}"`, blocking: false };
  // It answered anyway (llama.cpp serves its one model whatever the request names).
  if (facts.listed === 'not-listed') return notListed(name, facts.models, false);
  return {
    name: 'model listed',
    ok: undefined,
    detail: 'the server has no model list; not checked',
    blocking: false,
  };
}

async function contextCheck(
  model: OpenAIChatModel,
  facts: ServerFacts,
  signal: AbortSignal | undefined,
): Promise<ProbeCheck> {
  const window = await model.window(signal);
  const budget = promptTokenBudgetFor(window.contextTokens, window.outputTokens);
  const where =
    window.source === 'server'
      ? (facts.contextTokens?.source ?? 'the server')
      : window.source === 'config'
        ? 'SELFDEBUG_MODEL_CONTEXT_TOKENS'
        : 'the server does not say; assumed';
  if (window.contextTokens < MINIMUM_CONTEXT_TOKENS)
    return {
      name: 'context length',
      ok: false,
      detail: `${window.contextTokens} tokens (${where})`,
      fix: `start the server with a window of at least ${MINIMUM_CONTEXT_TOKENS} tokens (llama.cpp -c, vLLM --max-model-len, Ollama OLLAMA_CONTEXT_LENGTH)`,
      blocking: true,
    };
  return {
    name: 'context length',
    ok: window.source === 'default' ? undefined : true,
    detail: `${window.contextTokens} tokens (${where}): prompts up to ${budget}, answers up to ${window.outputTokens}`,
    ...(window.source === 'default'
      ? { fix: 'set SELFDEBUG_MODEL_CONTEXT_TOKENS (or model.context_tokens) if the window is smaller' }
      : {}),
    blocking: false,
  };
}

/** The first answer's speed, prompt included. */
function speedCheck(plain: ModelResponse, seconds: number): ProbeCheck {
  const tokens = plain.usage.completionTokens;
  const rate = tokens / seconds;
  return {
    name: 'tokens/s',
    ok: rate >= 2,
    detail: `~${rate >= 10 ? Math.round(rate) : rate.toFixed(1)} (${tokens}${plain.usageEstimated ? ' estimated' : ''} tokens in ${formatSeconds(seconds)}, prompt included)`,
    ...(rate < 2
      ? {
          fix: 'a 600-token answer will take minutes: keep SELFDEBUG_MODEL_TIMEOUT_SECONDS high, or use a smaller or quantised model',
        }
      : {}),
    blocking: false,
  };
}

/** What the tools check can find, but for a failed request (whose message is the fix). */
const TOOLS_FINDINGS = {
  off: { ok: undefined, detail: 'switched off (SELFDEBUG_MODEL_TOOLS=off)' },
  refused: {
    ok: false,
    detail: 'refused by the server; selfdebug works without them, reading only what the prompt shows',
    fix:
      'llama.cpp: start llama-server with --jinja; vLLM: --enable-auto-tool-choice --tool-call-parser <parser>; ' +
      'Ollama: a model with the "tools" capability; or set SELFDEBUG_MODEL_TOOLS=off to stop offering them',
  },
  called: { ok: true, detail: 'the model called a tool' },
  answeredInWords: {
    ok: false,
    detail: 'accepted, but the model answered in words instead of calling the tool',
    fix: 'use a model trained for tool calls (and its tool-call parser), or set SELFDEBUG_MODEL_TOOLS=off',
  },
} satisfies Record<string, ToolsFinding>;

type ToolsFinding = Pick<ProbeCheck, 'ok' | 'detail' | 'fix'>;

async function toolsCheck(model: OpenAIChatModel, signal: AbortSignal | undefined): Promise<ProbeCheck> {
  if (!model.toolsEnabled) return toolsResult(TOOLS_FINDINGS.off);
  let response: ModelResponse;
  try {
    response = await model.complete({
      purpose: 'explain',
      messages: [
        { role: 'user', content: 'Call the ping tool with the message "hello". Do not answer in words.' },
      ],
      tools: [PING_TOOL],
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    return toolsResult({ ok: false, detail: 'the request with a tool failed', fix: messageOf(error) });
  }
  // A server that refuses tools makes the model stop offering them and answer without: that is how a refusal shows.
  if (!model.toolsEnabled) return toolsResult(TOOLS_FINDINGS.refused);
  if (response.toolCalls.some((call) => call.name === 'ping')) return toolsResult(TOOLS_FINDINGS.called);
  return toolsResult(TOOLS_FINDINGS.answeredInWords);
}

function toolsResult(finding: ToolsFinding): ProbeCheck {
  return { name: 'tools', ...finding, blocking: false };
}

async function jsonSchemaCheck(model: OpenAIChatModel, signal: AbortSignal | undefined): Promise<ProbeCheck> {
  const before = model.structuredOutput;
  let response: ModelResponse;
  try {
    response = await model.complete({
      purpose: 'explain',
      messages: [{ role: 'user', content: 'Answer with ok true and the word "pong".' }],
      output: { name: 'doctor_check', schema: OK_SCHEMA },
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    return {
      name: 'json_schema',
      ok: false,
      detail: 'the structured request failed',
      fix: messageOf(error),
      blocking: true,
    };
  }
  const mode = model.structuredOutput;
  const valid = isOkAnswer(response.content);
  if (before === 'json_schema' && mode === 'json_schema' && valid) {
    return { name: 'json_schema', ok: true, detail: 'answers follow a JSON Schema', blocking: false };
  }
  const using = mode === 'none' ? 'the schema as an instruction' : mode;
  return {
    name: 'json_schema',
    ok: false,
    detail:
      mode !== before || before !== 'json_schema'
        ? `not used: answers use ${using}${valid ? ', and this one was valid' : ', and this one did not follow it'}`
        : 'accepted, but the answer did not follow the schema',
    fix:
      'a server with structured outputs (vLLM guided decoding, llama.cpp, Ollama ≥ 0.5, OpenAI) keeps answers valid; ' +
      'with weaker modes invalid answers cost repair rounds',
    blocking: false,
  };
}

function notListed(name: string, served: string[], blocking: boolean): ProbeCheck {
  const some = served
    .slice(0, 5)
    .map((id) => `"${id}"`)
    .join(', ');
  return {
    name: 'model listed',
    ok: false,
    detail: `GET /models does not list "${name}"`,
    fix: `set SELFDEBUG_MODEL (or model.name) to a model the server serves: ${some || 'none listed'}`,
    blocking,
  };
}

function isOkAnswer(content: string | null): boolean {
  try {
    const value: unknown = JSON.parse(content ?? '');
    return typeof value === 'object' && value !== null && 'ok' in value;
  } catch {
    return false;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function formatSeconds(seconds: number): string {
  return seconds < 1 ? `${Math.round(seconds * 1000)} ms` : `${seconds.toFixed(1)} s`;
}
