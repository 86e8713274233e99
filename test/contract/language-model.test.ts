import { describe, expect, it } from 'vitest';
import type { ModelConfigInput } from '../../src/config/model-config.js';
import { promptTokenBudgetFor } from '../../src/model/context-window.js';
import { AZURE_KEY, startAzureOpenAIFake } from '../fakes/model-servers/azure-openai.js';
import { startLlamaCppFake } from '../fakes/model-servers/llama-cpp.js';
import { startOllamaFake } from '../fakes/model-servers/ollama.js';
import { OPENAI_KEY, startOpenAIFake } from '../fakes/model-servers/openai.js';
import { startQuirkyFake } from '../fakes/model-servers/quirky.js';
import type { FakeModelServer } from '../fakes/model-servers/shared.js';
import { startVllmFake } from '../fakes/model-servers/vllm.js';
import { closedAddress, modelFor, silentServer } from '../helpers/model-clients.js';
import { type LanguageModelSubject, languageModelContract } from './language-model-contract.js';
import { languageModelPortContract } from './language-model-port-contract.js';

/** One fake server and how the adapter is configured for it, run through both contracts. */
interface ServerCase {
  name: string;
  start: () => Promise<FakeModelServer>;
  config: ModelConfigInput;
  expected: LanguageModelSubject['expected'];
}

const SERVERS: ServerCase[] = [
  {
    name: 'OpenAI',
    start: () => startOpenAIFake(),
    config: { apiKey: OPENAI_KEY, model: 'gpt-4.1-mini' },
    expected: { contextTokens: 16_384, contextSource: 'default', callsTools: true, reportsUsage: true },
  },
  {
    name: 'OpenAI reasoning model (o4-mini)',
    start: () => startOpenAIFake(),
    config: { apiKey: OPENAI_KEY, model: 'o4-mini' },
    expected: { contextTokens: 16_384, contextSource: 'default', callsTools: true, reportsUsage: true },
  },
  {
    name: 'Azure OpenAI deployment',
    start: () => startAzureOpenAIFake(),
    config: { apiKey: AZURE_KEY, model: 'gpt-4o', apiVersion: '2024-10-21', contextTokens: 128_000 },
    expected: { contextTokens: 128_000, contextSource: 'config', callsTools: true, reportsUsage: true },
  },
  {
    name: 'llama.cpp server with --jinja',
    start: () => startLlamaCppFake({ jinja: true, contextSize: 8192 }),
    config: { model: 'local' },
    expected: { contextTokens: 8192, contextSource: 'server', callsTools: true, reportsUsage: true },
  },
  {
    name: 'llama.cpp server without --jinja (no tools)',
    start: () => startLlamaCppFake({ jinja: false, contextSize: 4096 }),
    config: { model: 'local' },
    expected: { contextTokens: 4096, contextSource: 'server', callsTools: false, reportsUsage: true },
  },
  {
    name: 'Ollama',
    start: () => startOllamaFake({ contextLength: 32_768 }),
    config: { model: 'qwen2.5-coder:7b' },
    expected: { contextTokens: 32_768, contextSource: 'server', callsTools: true, reportsUsage: true },
  },
  {
    name: 'vLLM with --enable-auto-tool-choice',
    start: () => startVllmFake({ autoToolChoice: true, maxModelLen: 16_000, reasoning: true }),
    config: { model: 'Qwen/Qwen2.5-Coder-7B-Instruct' },
    expected: { contextTokens: 16_000, contextSource: 'server', callsTools: true, reportsUsage: true },
  },
  {
    name: 'vLLM without tool parser',
    start: () => startVllmFake({ autoToolChoice: false, maxModelLen: 4096 }),
    config: { model: 'Qwen/Qwen2.5-Coder-7B-Instruct' },
    expected: { contextTokens: 4096, contextSource: 'server', callsTools: false, reportsUsage: true },
  },
  {
    name: 'a server without usage, with reasoning_content and tool calls as text',
    start: () => startQuirkyFake(),
    config: { model: 'quirky-model' },
    expected: { contextTokens: 16_384, contextSource: 'default', callsTools: true, reportsUsage: false },
  },
];

for (const server of SERVERS) {
  languageModelContract(server.name, async () => {
    const started = await server.start();
    return { server: started, model: modelFor(started, server.config), expected: server.expected };
  });

  languageModelPortContract(`OpenAIChatModel, ${server.name}`, async () => {
    const [started, silent, closed] = await Promise.all([server.start(), silentServer(), closedAddress()]);
    const { contextTokens, contextSource, callsTools, reportsUsage } = server.expected;
    return {
      model: modelFor(started, server.config),
      expected: { callsTools, reportsUsage, window: { contextTokens, source: contextSource } },
      pending: () => modelFor(silent, server.config),
      unreachable: () => modelFor(closed, server.config),
      close: async () => {
        await Promise.all([started.close(), silent.close()]);
      },
    };
  });
}

describe('what each server needs, beyond the contract', () => {
  it('OpenAI reasoning models get max_completion_tokens and no temperature; others get max_tokens', async () => {
    const server = await startOpenAIFake();
    try {
      await modelFor(server, { apiKey: OPENAI_KEY, model: 'o4-mini' }).complete({
        purpose: 'explain',
        messages: [{ role: 'user', content: 'SPEAK' }],
      });
      await modelFor(server, { apiKey: OPENAI_KEY, model: 'gpt-4.1-mini', maxOutputTokens: 1000 }).complete({
        purpose: 'explain',
        messages: [{ role: 'user', content: 'SPEAK' }],
      });
      const [reasoning, plain] = server.chatBodies();
      expect(reasoning).toMatchObject({ max_completion_tokens: 4096, stream: true });
      expect(reasoning).not.toHaveProperty('max_tokens');
      expect(reasoning).not.toHaveProperty('temperature');
      expect(plain).toMatchObject({
        max_tokens: 1000,
        temperature: 0.2,
        stream_options: { include_usage: true },
      });
    } finally {
      await server.close();
    }
  });

  it('OpenAI: a refusal reaches the loop as the content, marked by its finish reason', async () => {
    const server = await startOpenAIFake();
    try {
      const response = await modelFor(server, { apiKey: OPENAI_KEY, model: 'gpt-4.1-mini' }).complete({
        purpose: 'generate',
        messages: [{ role: 'user', content: 'REFUSE this' }],
      });
      expect(response).toMatchObject({
        content: "I'm sorry, I can't help with that.",
        finishReason: 'refusal',
      });
    } finally {
      await server.close();
    }
  });

  it('OpenAI: the fake enforces strict-mode schema rules, as the API does', async () => {
    const { strictProblem } = await import('../fakes/model-servers/openai.js');
    expect(strictProblem({ type: 'object', properties: { a: { type: 'string' } } }, '')).toMatch(
      /additionalProperties/,
    );
    expect(
      strictProblem(
        { type: 'object', properties: { a: { type: 'string' } }, required: [], additionalProperties: false },
        '',
      ),
    ).toMatch(/Missing 'a'/);
  });

  it('Azure OpenAI: the api-version query and the api-key header ride along on every request', async () => {
    const server = await startAzureOpenAIFake();
    try {
      await modelFor(server, { apiKey: AZURE_KEY, model: 'gpt-4o', apiVersion: '2024-10-21' }).complete({
        purpose: 'explain',
        messages: [{ role: 'user', content: 'SPEAK' }],
      });
      const chat = server.requests.filter((request) => request.path.endsWith('/chat/completions'));
      expect(
        chat.map((request) => [request.path, request.query.get('api-version'), request.headers['api-key']]),
      ).toEqual([['/openai/deployments/selfdebug-gpt-4o/chat/completions', '2024-10-21', AZURE_KEY]]);
    } finally {
      await server.close();
    }
  });

  it('vLLM: the largest prompt the loop may build fits a 4k model together with its answer', async () => {
    const server = await startVllmFake({ maxModelLen: 4096, autoToolChoice: true });
    try {
      const model = modelFor(server, { model: 'Qwen/Qwen2.5-Coder-7B-Instruct' });
      const window = await model.window();
      const budget = promptTokenBudgetFor(window.contextTokens, window.outputTokens);
      // A prompt of exactly the budget (in our characters / 4 estimate) is accepted.
      const filler = 'x'.repeat(budget * 4 - 200);
      const response = await model.complete({
        purpose: 'explain',
        messages: [{ role: 'user', content: `SPEAK ${filler}` }],
      });
      expect(response.content).toContain('You said');
      expect(server.chatBodies()[0]?.max_tokens).toBe(window.outputTokens);
      expect(window.outputTokens).toBe(1024);
    } finally {
      await server.close();
    }
  });

  it('Ollama: a num_ctx in the Modelfile is the window, not the model family maximum', async () => {
    const server = await startOllamaFake({ contextLength: 131_072, numCtx: 8192 });
    try {
      expect(await modelFor(server, { model: 'qwen2.5-coder:7b' }).window()).toMatchObject({
        contextTokens: 8192,
        source: 'server',
      });
    } finally {
      await server.close();
    }
  });

  it('a server that refuses tools is remembered: the next structured call goes straight to the answer', async () => {
    const server = await startLlamaCppFake({ jinja: false });
    try {
      const model = modelFor(server, { model: 'local' });
      expect(model.toolsEnabled).toBe(true);
      await model.complete({
        purpose: 'generate',
        messages: [{ role: 'user', content: 'SPEAK' }],
        tools: [{ name: 'read_file', description: 'read', parameters: { type: 'object' } }],
      });
      expect(model.toolsEnabled).toBe(false);
      const bodies = server.chatBodies();
      expect(bodies.map((body) => body.tools !== undefined)).toEqual([true, false]);
    } finally {
      await server.close();
    }
  });

  it('settings override what was found: tools "off" never offers them, a fixed mode is used as is', async () => {
    const server = await startOllamaFake();
    try {
      const model = modelFor(server, {
        model: 'qwen2.5-coder:7b',
        tools: 'off',
        structuredOutput: 'json_object',
      });
      expect(model.toolsEnabled).toBe(false);
      await model.complete({
        purpose: 'reflect',
        messages: [{ role: 'user', content: 'Sum up.' }],
        output: { name: 'r', schema: { type: 'object', properties: { ok: { type: 'boolean' } } } },
      });
      expect(server.chatBodies()[0]?.response_format).toEqual({ type: 'json_object' });
    } finally {
      await server.close();
    }
  });
});
