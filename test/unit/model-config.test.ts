import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLanguageModel, isLoopbackUrl, PLACEHOLDER_API_KEY } from '../../src/adapters/openai/index.js';
import { loadModelConfig, parseModelConfig } from '../../src/config/model-config.js';
import { ConfigError, ModelAuthError } from '../../src/errors/index.js';

function failureOf(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

describe('model configuration', () => {
  it('has defaults for everything but the key and the URL', () => {
    expect(loadModelConfig({})).toEqual({
      model: 'gpt-4.1-mini',
      temperature: 0.2,
      timeoutSeconds: 600,
      idleTimeoutSeconds: 90,
      maxRetries: 4,
      structuredOutput: 'auto',
      tools: 'auto',
      maxOutputTokens: 4096,
      inputPricePerMillion: 0,
      outputPricePerMillion: 0,
    });
  });

  it('reads every setting from the environment', () => {
    const config = loadModelConfig({
      SELFDEBUG_MODEL_API_KEY: 'sk-selfdebug',
      SELFDEBUG_MODEL_BASE_URL: 'https://example.openai.azure.com/openai/v1',
      SELFDEBUG_MODEL: 'gpt-4.1',
      SELFDEBUG_MODEL_TEMPERATURE: '0',
      SELFDEBUG_MODEL_TIMEOUT_SECONDS: '30.5',
      SELFDEBUG_MODEL_MAX_RETRIES: '0',
      SELFDEBUG_MODEL_STRUCTURED_OUTPUT: 'json_object',
      SELFDEBUG_MODEL_IDLE_TIMEOUT_SECONDS: '20',
      SELFDEBUG_MODEL_TOOLS: 'off',
      SELFDEBUG_MODEL_CONTEXT_TOKENS: '8192',
      SELFDEBUG_MODEL_MAX_OUTPUT_TOKENS: '1024',
      SELFDEBUG_MODEL_API_VERSION: '2024-10-21',
      SELFDEBUG_MODEL_PRICE_INPUT: '2',
      SELFDEBUG_MODEL_PRICE_OUTPUT: '8.5',
    });
    expect(config).toEqual({
      apiKey: 'sk-selfdebug',
      baseUrl: 'https://example.openai.azure.com/openai/v1',
      model: 'gpt-4.1',
      temperature: 0,
      timeoutSeconds: 30.5,
      idleTimeoutSeconds: 20,
      maxRetries: 0,
      structuredOutput: 'json_object',
      tools: 'off',
      contextTokens: 8192,
      maxOutputTokens: 1024,
      apiVersion: '2024-10-21',
      inputPricePerMillion: 2,
      outputPricePerMillion: 8.5,
    });
  });

  it('prefers the SELFDEBUG_ variables, falls back to the OpenAI ones, and treats empty as unset', () => {
    const both = loadModelConfig({
      SELFDEBUG_MODEL_API_KEY: 'sk-ours',
      OPENAI_API_KEY: 'sk-theirs',
      SELFDEBUG_MODEL_BASE_URL: 'http://127.0.0.1:8000/v1',
      OPENAI_BASE_URL: 'https://openrouter.ai/api/v1',
    });
    expect(both).toMatchObject({ apiKey: 'sk-ours', baseUrl: 'http://127.0.0.1:8000/v1' });

    const fallback = loadModelConfig({
      SELFDEBUG_MODEL_API_KEY: '',
      OPENAI_API_KEY: 'sk-theirs',
      OPENAI_BASE_URL: 'https://openrouter.ai/api/v1',
    });
    expect(fallback).toMatchObject({ apiKey: 'sk-theirs', baseUrl: 'https://openrouter.ai/api/v1' });
  });

  it('refuses values that are not numbers instead of letting NaN through, naming the variable', () => {
    const error = failureOf(() =>
      loadModelConfig({ SELFDEBUG_MODEL_TEMPERATURE: 'warm', SELFDEBUG_MODEL_MAX_RETRIES: '1e3' }),
    );
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain('SELFDEBUG_MODEL_TEMPERATURE: "warm" is not a number');
    expect(message).toContain('SELFDEBUG_MODEL_MAX_RETRIES: "1e3" is not a number');
    expect(message).toMatch(/Fix the values above/);
  });

  it('refuses out-of-range values, naming the variable', () => {
    expect(() => loadModelConfig({ SELFDEBUG_MODEL_TEMPERATURE: '3' })).toThrow(
      /\n {2}→ at SELFDEBUG_MODEL_TEMPERATURE/,
    );
    expect(() => loadModelConfig({ SELFDEBUG_MODEL_MAX_RETRIES: '11' })).toThrow(
      /SELFDEBUG_MODEL_MAX_RETRIES/,
    );
    expect(() => loadModelConfig({ SELFDEBUG_MODEL_MAX_RETRIES: '1.5' })).toThrow(
      /SELFDEBUG_MODEL_MAX_RETRIES/,
    );
    expect(() => loadModelConfig({ SELFDEBUG_MODEL_TIMEOUT_SECONDS: '0' })).toThrow(
      /SELFDEBUG_MODEL_TIMEOUT_SECONDS/,
    );
    expect(() => loadModelConfig({ SELFDEBUG_MODEL_PRICE_OUTPUT: '-1' })).toThrow(
      /SELFDEBUG_MODEL_PRICE_OUTPUT/,
    );
    expect(() => loadModelConfig({ SELFDEBUG_MODEL_STRUCTURED_OUTPUT: 'xml' })).toThrow(
      /SELFDEBUG_MODEL_STRUCTURED_OUTPUT/,
    );
  });

  it('names the variable a bad URL came from and never echoes the key', () => {
    const error = failureOf(() =>
      loadModelConfig({ OPENAI_BASE_URL: 'not a url', OPENAI_API_KEY: 'sk-secret-value' }),
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/http\(s\) URL[\s\S]*at OPENAI_BASE_URL/);
    expect((error as Error).message).not.toContain('sk-secret-value');
    expect(() => loadModelConfig({ SELFDEBUG_MODEL_BASE_URL: 'ftp://example.com/v1' })).toThrow(
      /at SELFDEBUG_MODEL_BASE_URL/,
    );
  });

  it('validates settings given as an object too', () => {
    expect(parseModelConfig({ model: 'llama3.1' }).model).toBe('llama3.1');
    expect(() => parseModelConfig({ temperature: -1 }, 'the test')).toThrow(
      /Invalid configuration in the test/,
    );
  });
});

describe('the API key', () => {
  beforeEach(() => {
    nock.disableNetConnect();
  });

  afterEach(() => {
    try {
      expect(nock.pendingMocks()).toEqual([]);
      expect(nock.isDone()).toBe(true);
    } finally {
      nock.cleanAll();
      nock.enableNetConnect();
    }
  });

  it('is required for OpenAI and for remote servers, naming the variables to set', () => {
    for (const env of [{}, { SELFDEBUG_MODEL_BASE_URL: 'https://api.test.invalid/v1' }]) {
      const error = failureOf(() => createLanguageModel(loadModelConfig(env)));
      expect(error).toBeInstanceOf(ModelAuthError);
      expect((error as Error).message).toContain('Set SELFDEBUG_MODEL_API_KEY or OPENAI_API_KEY');
    }
  });

  it('is not needed for a server on this machine, which gets a placeholder instead', async () => {
    const model = createLanguageModel(
      loadModelConfig({ SELFDEBUG_MODEL_BASE_URL: 'http://127.0.0.1:11434/v1' }),
    );
    nock('http://127.0.0.1:11434/v1')
      .matchHeader('authorization', `Bearer ${PLACEHOLDER_API_KEY}`)
      .post('/chat/completions')
      .reply(200, {
        id: 'x',
        object: 'chat.completion',
        created: 1,
        model: 'llama3.1',
        choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
      });

    const response = await model.complete({
      purpose: 'explain',
      messages: [{ role: 'user', content: 'hello' }],
    });

    expect(response.content).toBe('hi');
  });

  it('counts only loopback hosts as this machine', () => {
    expect(isLoopbackUrl('http://localhost:11434/v1')).toBe(true);
    expect(isLoopbackUrl('http://ollama.localhost/v1')).toBe(true);
    expect(isLoopbackUrl('http://127.0.0.1:8000/v1')).toBe(true);
    expect(isLoopbackUrl('http://127.1.2.3/v1')).toBe(true);
    expect(isLoopbackUrl('http://[::1]:8000/v1')).toBe(true);
    expect(isLoopbackUrl('http://127.0.0.1.evil.example/v1')).toBe(false);
    expect(isLoopbackUrl('http://localhost.evil.example/v1')).toBe(false);
    expect(isLoopbackUrl('http://10.0.0.5:8000/v1')).toBe(false);
    expect(isLoopbackUrl('not a url')).toBe(false);
  });
});
