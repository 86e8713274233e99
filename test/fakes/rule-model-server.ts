import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readJson, sendJson } from '../helpers/fake-openai-server.js';

/**
 * One rule of the scripted model: when a request asks for `schema` (the
 * structured output's name: fix_proposal, retry_decision, reflection) and its
 * messages contain `when`, answer `answer` (a JSON value, or a function of the
 * request's text and how often the rule matched before).
 */
export interface ModelRule {
  when: string | RegExp;
  schema: 'fix_proposal' | 'retry_decision' | 'reflection';
  answer: unknown | ((text: string, matched: number) => unknown);
  /** Holds the answer back this long, e.g. so a test can act while a job waits for the model. */
  delayMs?: number;
}

export interface RuleModelServer {
  /** The base URL for SELFDEBUG_MODEL_BASE_URL, e.g. http://127.0.0.1:41234/v1. */
  readonly url: string;
  /** Each request's schema and the index of the rule that answered it (null: none did). */
  readonly calls: { schema: string | null; rule: number | null }[];
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible server on 127.0.0.1 whose answers depend on what is
 * asked, not on the order of requests, so several jobs (and processes) can
 * share it. A request no rule matches gets a 400, which the OpenAI adapter
 * does not retry: the job fails at once and the test sees why.
 */
export async function startRuleModelServer(rules: ModelRule[]): Promise<RuleModelServer> {
  const calls: RuleModelServer['calls'] = [];
  const matchedCounts = rules.map(() => 0);
  const server = createServer((request, response) => {
    void answer(request, response).catch((error: unknown) =>
      sendJson(response, 500, { error: String(error) }),
    );
  });

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const parsed = await readJson(request);
    const body = typeof parsed === 'object' && parsed !== null ? (parsed as ChatBody) : null;
    if (request.method !== 'POST' || request.url !== '/v1/chat/completions' || body === null) {
      return sendJson(response, 404, { error: { message: `no route for ${request.method} ${request.url}` } });
    }
    // Requests that offer tools carry no response format (docs/models.md); only fix proposals offer tools.
    const schema =
      body.response_format?.json_schema?.name ?? ((body.tools?.length ?? 0) > 0 ? 'fix_proposal' : null);
    const text = (body.messages ?? [])
      .map((message) =>
        typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
      )
      .join('\n');
    const index = rules.findIndex(
      (rule) =>
        rule.schema === schema &&
        (typeof rule.when === 'string' ? text.includes(rule.when) : rule.when.test(text)),
    );
    calls.push({ schema, rule: index === -1 ? null : index });
    if (index === -1) {
      return sendJson(response, 400, { error: { message: `rule model: no rule for a ${schema} request` } });
    }
    const rule = rules[index]!;
    const matched = matchedCounts[index]!;
    matchedCounts[index] = matched + 1;
    if (rule.delayMs) await new Promise((resolve) => setTimeout(resolve, rule.delayMs));
    const value = typeof rule.answer === 'function' ? rule.answer(text, matched) : rule.answer;
    sendJson(response, 200, completion(JSON.stringify(value), body.model ?? 'rule-model', calls.length));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    calls,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

interface ChatBody {
  model?: string;
  messages?: { role: string; content: unknown }[];
  response_format?: { type: string; json_schema?: { name?: string } };
  tools?: unknown[];
}

/** The chat.completion shape the openai SDK parses. */
function completion(content: string, model: string, index: number) {
  return {
    id: `chatcmpl-rule-${index}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null },
        finish_reason: 'stop',
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 900, completion_tokens: 60, total_tokens: 960 },
  };
}
