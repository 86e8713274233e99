import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLanguageModel, ServerProfiles } from '../../src/adapters/openai/index.js';
import { type ModelConfigInput, parseModelConfig } from '../../src/config/model-config.js';
import { ModelApiError, ModelAuthError } from '../../src/errors/index.js';
import type { ModelRequest } from '../../src/model/language-model.js';
import { ManualTimers } from '../helpers/manual-timers.js';

const BASE_URL = 'https://api.test.invalid/v1';
const API_KEY = 'sk-test-0123456789abcdefSECRET';

type Body = Record<string, unknown>;

let unmatched: string[];
const recordUnmatched = (request: { method?: string; path?: string }) => {
  unmatched.push(`${request.method} ${request.path}`);
};

beforeEach(() => {
  nock.disableNetConnect();
  unmatched = [];
  nock.emitter.on('no match', recordUnmatched);
});

afterEach(() => {
  nock.emitter.removeListener('no match', recordUnmatched);
  try {
    expect(unmatched).toEqual([]);
    expect(nock.pendingMocks()).toEqual([]);
    expect(nock.isDone()).toBe(true);
  } finally {
    nock.abortPendingRequests();
    nock.cleanAll();
    nock.enableNetConnect();
  }
});

const notFound: typeof fetch = async () => new Response(null, { status: 404 });

function makeModel(overrides: Partial<ModelConfigInput> = {}, timers?: ManualTimers) {
  const sleeps: number[] = [];
  const model = createLanguageModel(
    parseModelConfig({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 2, ...overrides }),
    {
      ...(timers ? { timers } : {}),
      sleep: async (milliseconds) => {
        sleeps.push(milliseconds);
      },
      random: () => 0,
      // Fresh for each test: what one test's server refused must not leak into the next.
      profiles: new ServerProfiles(),
      // The context-window questions (GET /models, /props, /api/show) get "not here".
      fetch: notFound,
    },
  );
  return { model, sleeps };
}

/** One interceptor for POST /chat/completions that keeps the body it received. */
function expectCompletion(bodies: Body[]) {
  return nock(BASE_URL)
    .matchHeader('authorization', `Bearer ${API_KEY}`)
    .post('/chat/completions', (body: Body) => {
      bodies.push(body);
      return true;
    });
}

function completion(message: Record<string, unknown>, finishReason = 'stop') {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-4.1-mini-2025-04-14',
    choices: [
      { index: 0, message: { role: 'assistant', refusal: null, ...message }, finish_reason: finishReason },
    ],
    usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
  };
}

const plainRequest: ModelRequest = {
  purpose: 'explain',
  messages: [
    { role: 'system', content: 'You fix scripts.' },
    { role: 'user', content: 'Why did it fail?' },
  ],
};

const structuredRequest: ModelRequest = {
  purpose: 'retry-decision',
  messages: [
    { role: 'system', content: 'You decide.' },
    { role: 'user', content: 'Try again?' },
  ],
  output: {
    name: 'retry decision',
    schema: {
      type: 'object',
      properties: { retry: { type: 'boolean' }, reason: { type: 'string' } },
      required: ['retry', 'reason'],
    },
  },
};

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

describe('OpenAIChatModel', () => {
  it('sends the messages and maps a plain answer with its usage', async () => {
    const bodies: Body[] = [];
    expectCompletion(bodies).reply(200, completion({ content: 'The file is missing.' }));
    const { model, sleeps } = makeModel();

    const response = await model.complete(plainRequest);

    expect(bodies).toEqual([
      {
        model: 'gpt-4.1-mini',
        temperature: 0.2,
        max_tokens: 4096,
        stream: true,
        stream_options: { include_usage: true },
        messages: [
          { role: 'system', content: 'You fix scripts.' },
          { role: 'user', content: 'Why did it fail?' },
        ],
      },
    ]);
    expect(response).toEqual({
      content: 'The file is missing.',
      toolCalls: [],
      usage: { promptTokens: 12, completionTokens: 3, totalTokens: 15 },
      model: 'gpt-4.1-mini-2025-04-14',
      finishReason: 'stop',
    });
    expect(model.model).toBe('gpt-4.1-mini');
    expect(sleeps).toEqual([]);
  });

  it('offers tools, maps tool calls back, and sends the tool result in the next request', async () => {
    const bodies: Body[] = [];
    const readFile = {
      name: 'read_file',
      description: 'Read a file of the repository',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    };
    expectCompletion(bodies).reply(
      200,
      completion(
        {
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'read_file', arguments: '{"path":"run.sh"}' },
            },
          ],
        },
        'tool_calls',
      ),
    );
    expectCompletion(bodies).reply(200, completion({ content: 'run.sh calls a missing binary.' }));
    const { model } = makeModel();

    const first = await model.complete({ ...plainRequest, tools: [readFile] });
    expect(first.toolCalls).toEqual([{ id: 'call_1', name: 'read_file', arguments: '{"path":"run.sh"}' }]);
    expect(first.content).toBeNull();
    expect(first.finishReason).toBe('tool_calls');

    const second = await model.complete({
      ...plainRequest,
      tools: [readFile],
      messages: [
        ...plainRequest.messages,
        { role: 'assistant', content: null, toolCalls: first.toolCalls },
        { role: 'tool', toolCallId: 'call_1', content: '#!/bin/sh\nfrobnicate' },
      ],
    });
    expect(second.content).toBe('run.sh calls a missing binary.');

    const tools = [
      {
        type: 'function',
        function: { name: 'read_file', description: readFile.description, parameters: readFile.parameters },
      },
    ];
    expect(bodies[0]?.tools).toEqual(tools);
    expect(bodies[1]?.tools).toEqual(tools);
    expect(bodies[1]?.messages).toEqual([
      { role: 'system', content: 'You fix scripts.' },
      { role: 'user', content: 'Why did it fail?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"run.sh"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '#!/bin/sh\nfrobnicate' },
    ]);
  });

  it('asks for structured output with the json_schema response format and the given schema', async () => {
    const bodies: Body[] = [];
    expectCompletion(bodies).reply(200, completion({ content: '{"retry":true,"reason":"typo"}' }));
    const { model } = makeModel();

    const response = await model.complete(structuredRequest);

    expect(response.content).toBe('{"retry":true,"reason":"typo"}');
    expect(bodies[0]?.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'retry_decision', schema: structuredRequest.output?.schema, strict: false },
    });
    // The schema travels in response_format; the prompt is left as the loop wrote it.
    expect(bodies[0]?.messages).toEqual([
      { role: 'system', content: 'You decide.' },
      { role: 'user', content: 'Try again?' },
    ]);
    expect(model.structuredOutput).toBe('json_schema');
  });

  it('steps down to json_object, then to no response format, and keeps the downgrade', async () => {
    const bodies: Body[] = [];
    expectCompletion(bodies).reply(400, {
      error: {
        message:
          "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
        type: 'invalid_request_error',
        param: 'response_format',
        code: null,
      },
    });
    expectCompletion(bodies).reply(400, {
      error: { message: 'response_format not supported', type: 'BadRequestError', param: null, code: 400 },
    });
    expectCompletion(bodies).reply(200, completion({ content: '{"retry":false,"reason":"flaky"}' }));
    expectCompletion(bodies).reply(200, completion({ content: '{"retry":true,"reason":"again"}' }));
    const { model, sleeps } = makeModel();

    const first = await model.complete(structuredRequest);
    const second = await model.complete(structuredRequest);

    expect(first.content).toBe('{"retry":false,"reason":"flaky"}');
    expect(second.content).toBe('{"retry":true,"reason":"again"}');
    expect(bodies.map((body) => body.response_format)).toEqual([
      expect.objectContaining({ type: 'json_schema' }),
      { type: 'json_object' },
      undefined,
      undefined,
    ]);
    // Without json_schema the schema is spelled out in the system message (json_object needs "JSON" there too).
    expect(bodies[1]?.messages).toEqual([
      {
        role: 'system',
        content: `You decide.\n\nAnswer with a single JSON object and nothing else (no prose, no code fences). It must follow this JSON Schema ("retry decision"):\n${JSON.stringify(structuredRequest.output?.schema)}`,
      },
      { role: 'user', content: 'Try again?' },
    ]);
    expect(bodies[3]?.messages).toEqual(bodies[2]?.messages);
    expect(model.structuredOutput).toBe('none');
    // A downgrade is not a retry: no wait, and the retry budget is untouched.
    expect(sleeps).toEqual([]);
  });

  it('starts from the configured mode and adds the schema as a system message when there is none', async () => {
    const bodies: Body[] = [];
    expectCompletion(bodies).reply(200, completion({ content: '{}' }));
    const { model } = makeModel({ structuredOutput: 'json_object' });

    await model.complete({ ...structuredRequest, messages: [{ role: 'user', content: 'Try again?' }] });

    expect(bodies[0]?.response_format).toEqual({ type: 'json_object' });
    expect(bodies[0]?.messages).toEqual([
      { role: 'system', content: expect.stringContaining('"required":["retry","reason"]') },
      { role: 'user', content: 'Try again?' },
    ]);
  });

  it('waits as long as retry-after says on 429, through the injected sleep, then succeeds', async () => {
    const bodies: Body[] = [];
    expectCompletion(bodies).reply(
      429,
      { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } },
      { 'retry-after': '2' },
    );
    expectCompletion(bodies).reply(200, completion({ content: 'ok' }));
    const { model, sleeps } = makeModel();

    const response = await model.complete(plainRequest);

    expect(response.content).toBe('ok');
    expect(sleeps).toEqual([2000]);
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toEqual(bodies[0]);
  });

  it('prefers retry-after-ms and caps a far-away retry-after date at 60 s', async () => {
    expectCompletion([]).reply(503, 'busy', { 'retry-after-ms': '1500', 'retry-after': '9' });
    expectCompletion([]).reply(503, 'busy', { 'retry-after': 'Wed, 01 Jan 2098 00:00:00 GMT' });
    expectCompletion([]).reply(200, completion({ content: 'ok' }));
    const { model, sleeps } = makeModel();

    await model.complete(plainRequest);

    expect(sleeps).toEqual([1500, 60_000]);
  });

  it('retries a 500 twice with exponential backoff, then succeeds', async () => {
    expectCompletion([])
      .times(2)
      .reply(500, { error: { message: 'The server had an error', type: 'server_error' } });
    expectCompletion([]).reply(200, completion({ content: 'ok' }));
    const { model, sleeps } = makeModel();

    const response = await model.complete(plainRequest);

    expect(response.content).toBe('ok');
    expect(sleeps).toEqual([500, 1000]);
  });

  it('logs each retry as a fixed message with fields, never with the key', async () => {
    expectCompletion([]).reply(500, { error: { message: `bad key ${API_KEY}` } });
    expectCompletion([]).reply(200, completion({ content: 'ok' }));
    const warnings: { fields: object; message: string }[] = [];
    const model = createLanguageModel(parseModelConfig({ apiKey: API_KEY, baseUrl: BASE_URL }), {
      sleep: async () => {},
      random: () => 0,
      fetch: notFound,
      logger: {
        debug() {},
        info() {},
        warn: (fields, message) => warnings.push({ fields, message }),
        error() {},
      },
    });

    await model.complete(plainRequest);

    expect(warnings).toEqual([
      {
        message: 'model request failed; retrying',
        fields: {
          purpose: 'explain',
          model: 'gpt-4.1-mini',
          retry: 1,
          delayMilliseconds: 500,
          status: 500,
          error: 'InternalServerError',
        },
      },
    ]);
    expect(JSON.stringify(warnings)).not.toContain(API_KEY);
  });

  it('gives up on a server that keeps answering 500 after maxRetries + 1 tries', async () => {
    expectCompletion([])
      .times(3)
      .reply(500, { error: { message: 'The server had an error', type: 'server_error' } });
    const { model, sleeps } = makeModel({ maxRetries: 2 });

    const error = await failureOf(model.complete(plainRequest));

    expect(error).toBeInstanceOf(ModelApiError);
    expect(error).toMatchObject({ status: 500, retryable: true, code: 'model-api' });
    expect((error as Error).message).toContain('https://api.test.invalid/v1');
    expect((error as Error).message).toContain('after 3 tries');
    expect((error as Error).message).toContain('SELFDEBUG_MODEL_MAX_RETRIES');
    expect(sleeps).toHaveLength(2);
  });

  it('retries a request whose server goes silent, then reports the idle timeout', async () => {
    const scope = expectCompletion([])
      .times(2)
      .delay(2000)
      .reply(200, completion({ content: 'too late' }));
    const timers = new ManualTimers();
    // Time passes when the test says so: once the server holds a try, its idle limit passes.
    scope.on('request', () => setImmediate(() => timers.advance(50)));
    const { model, sleeps } = makeModel({ idleTimeoutSeconds: 0.05, maxRetries: 1 }, timers);

    // The delayed replies would succeed: an error naming the idle limit shows neither was waited for.
    const error = await failureOf(model.complete(plainRequest));

    expect(error).toBeInstanceOf(ModelApiError);
    expect(error).toMatchObject({ status: undefined, retryable: true });
    expect((error as Error).message).toMatch(/went silent for 0\.05 s .*\(2 tries\)/);
    expect((error as Error).message).toContain('SELFDEBUG_MODEL_IDLE_TIMEOUT_SECONDS');
    expect(sleeps).toEqual([500]);
  });

  it('does not retry a call that ran past its total cap', async () => {
    const scope = expectCompletion([])
      .delay(2000)
      .reply(200, completion({ content: 'too late' }));
    const timers = new ManualTimers();
    scope.on('request', () => setImmediate(() => timers.advance(50)));
    const { model, sleeps } = makeModel({ timeoutSeconds: 0.05, maxRetries: 3 }, timers);

    const error = await failureOf(model.complete(plainRequest));

    expect(error).toMatchObject({ retryable: false });
    expect((error as Error).message).toMatch(
      /still answering after 0\.05 s.*SELFDEBUG_MODEL_TIMEOUT_SECONDS/s,
    );
    expect(sleeps).toEqual([]);
  });

  it('sends a request whose connection was reset again at once', async () => {
    expectCompletion([]).replyWithError({ code: 'ECONNRESET', message: 'socket hang up' });
    expectCompletion([]).reply(200, completion({ content: 'ok' }));
    const { model, sleeps } = makeModel();

    expect((await model.complete(plainRequest)).content).toBe('ok');
    expect(sleeps).toEqual([]);
  });

  it('backs off when the connection keeps being reset', async () => {
    // Three tries at once (src/adapters/http/reconnecting-fetch.ts), then the retry policy's wait.
    expectCompletion([]).times(3).replyWithError({ code: 'ECONNRESET', message: 'socket hang up' });
    expectCompletion([]).reply(200, completion({ content: 'ok' }));
    const { model, sleeps } = makeModel();

    expect((await model.complete(plainRequest)).content).toBe('ok');
    expect(sleeps).toEqual([500]);
  });

  it('names the connection failure once the retries are spent', async () => {
    expectCompletion([])
      .times(2)
      .replyWithError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const { model } = makeModel({ maxRetries: 1 });

    const error = await failureOf(model.complete(plainRequest));

    expect(error).toBeInstanceOf(ModelApiError);
    expect(error).toMatchObject({ retryable: true });
    expect((error as Error).message).toMatch(
      /Could not reach .*api\.test\.invalid.* \(ECONNREFUSED\) after 2 tries/,
    );
  });

  it('maps 401 to ModelAuthError without retrying and without the key in the message', async () => {
    expectCompletion([]).reply(
      401,
      {
        error: {
          message: `Incorrect API key provided: ${API_KEY.slice(0, 8)}****************CRET. You can find your API key at https://platform.openai.com/account/api-keys.`,
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      },
      { 'x-request-id': 'req_123' },
    );
    const { model, sleeps } = makeModel();

    const error = await failureOf(model.complete(plainRequest));

    expect(error).toBeInstanceOf(ModelAuthError);
    expect(error).toMatchObject({ retryable: false, code: 'model-auth' });
    const message = (error as Error).message;
    expect(message).toContain('SELFDEBUG_MODEL_API_KEY or OPENAI_API_KEY');
    expect(message).toContain('req_123');
    expect(message).not.toContain(API_KEY);
    expect(message).not.toContain(API_KEY.slice(0, 8));
    expect(JSON.stringify(error)).not.toContain(API_KEY);
    expect(sleeps).toEqual([]);
  });

  it('does not retry a 400 that is not about structured output', async () => {
    expectCompletion([]).reply(400, {
      error: { message: "'messages' must not be empty", type: 'invalid_request_error', param: 'messages' },
    });
    const { model, sleeps } = makeModel();

    const error = await failureOf(model.complete(plainRequest));

    expect(error).toBeInstanceOf(ModelApiError);
    expect(error).toMatchObject({ status: 400, retryable: false });
    expect((error as Error).message).toContain("'messages' must not be empty");
    expect(model.structuredOutput).toBe('json_schema');
    expect(sleeps).toEqual([]);
  });

  it('does not retry a 429 for an exhausted quota', async () => {
    expectCompletion([]).reply(429, {
      error: {
        message: 'You exceeded your current quota',
        type: 'insufficient_quota',
        code: 'insufficient_quota',
      },
    });
    const { model, sleeps } = makeModel();

    const error = await failureOf(model.complete(plainRequest));

    expect(error).toMatchObject({ status: 429, retryable: false });
    expect((error as Error).message).toContain('quota');
    expect(sleeps).toEqual([]);
  });

  it('rejects promptly with the abort reason when the signal aborts mid-request, without retrying', async () => {
    const scope = expectCompletion([])
      .delay(5000)
      .reply(200, completion({ content: 'too late' }));
    const { model, sleeps } = makeModel();
    const controller = new AbortController();
    // Aborted once the server holds the request, not after a guessed delay.
    scope.on('request', () => setImmediate(() => controller.abort()));

    // The delayed reply would succeed: getting the abort reason back shows it was not waited for.
    const error = await failureOf(model.complete({ ...plainRequest, signal: controller.signal }));

    expect(error).toBe(controller.signal.reason);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(sleeps).toEqual([]);
  });

  it('stops waiting between retries when the signal aborts during the wait', async () => {
    expectCompletion([]).reply(500, { error: { message: 'boom' } });
    const controller = new AbortController();
    const reason = new Error('job cancelled');
    const model = createLanguageModel(
      parseModelConfig({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 3 }),
      {
        sleep: async () => {
          controller.abort(reason);
        },
        fetch: notFound,
      },
    );

    await expect(model.complete({ ...plainRequest, signal: controller.signal })).rejects.toBe(reason);
  });

  it('copes with compatible servers that omit usage and answer with a refusal', async () => {
    expectCompletion([]).reply(200, {
      id: 'x',
      object: 'chat.completion',
      created: 1,
      model: '',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: null, refusal: 'I cannot help with that.' },
          finish_reason: 'stop',
        },
      ],
    });
    const { model } = makeModel();

    const response = await model.complete(plainRequest);

    // No usage: estimated from the text (characters / 4) and marked so.
    const promptTokens = Math.ceil(JSON.stringify(plainRequest.messages).length / 4);
    const completionTokens = Math.ceil('I cannot help with that.'.length / 4);
    expect(response).toEqual({
      content: 'I cannot help with that.',
      toolCalls: [],
      usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
      usageEstimated: true,
      model: 'gpt-4.1-mini',
      finishReason: 'refusal',
    });
  });

  it('reports an answer without choices as a model API error', async () => {
    expectCompletion([]).reply(200, {
      id: 'x',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [],
    });
    const { model } = makeModel();

    await expect(model.complete(plainRequest)).rejects.toThrow(/without any choice.*SELFDEBUG_MODEL/s);
  });
});
