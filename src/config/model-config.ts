import { z } from 'zod';
import { ConfigError } from '../errors/config-errors.js';
import { type Environment, readEnvironment } from './read-environment.js';

/**
 * Settings for the OpenAI-compatible model server. The API key may be absent
 * here on purpose: local servers (Ollama, vLLM) often need none, so whether a
 * missing key is an error is decided by the adapter factory, which knows the URL.
 */
export const modelConfigSchema = z.object({
  apiKey: z.string().min(1).optional(),
  /** OpenAI by default; Azure OpenAI (v1 endpoint), vLLM, Ollama, LiteLLM, OpenRouter… through this. */
  baseUrl: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. "http://127.0.0.1:11434/v1"' })
    .optional(),
  model: z.string().min(1).default('gpt-4.1-mini'),
  temperature: z.number().min(0).max(2).default(0.2),
  /** Per HTTP request, not per loop attempt. */
  timeoutSeconds: z.number().positive().max(3600).default(120),
  /** API retries (429, 5xx, timeouts); they never count as loop attempts. */
  maxRetries: z.int().min(0).max(10).default(4),
  /** The best structured output to ask for; the adapter steps down if the server refuses it. */
  structuredOutput: z.enum(['json_schema', 'json_object', 'none']).default('json_schema'),
  /** USD per million tokens; 0 means unknown, so no cost is shown. */
  inputPricePerMillion: z.number().min(0).default(0),
  outputPricePerMillion: z.number().min(0).default(0),
});

export type ModelConfig = z.infer<typeof modelConfigSchema>;
export type ModelConfigInput = z.input<typeof modelConfigSchema>;
export type StructuredOutputMode = ModelConfig['structuredOutput'];

/** Environment variables for each setting, first set one wins; unset variables keep the default. */
export const modelEnvironment = {
  apiKey: ['SELFDEBUG_MODEL_API_KEY', 'OPENAI_API_KEY'],
  baseUrl: ['SELFDEBUG_MODEL_BASE_URL', 'OPENAI_BASE_URL'],
  model: ['SELFDEBUG_MODEL'],
  temperature: ['SELFDEBUG_MODEL_TEMPERATURE'],
  timeoutSeconds: ['SELFDEBUG_MODEL_TIMEOUT_SECONDS'],
  maxRetries: ['SELFDEBUG_MODEL_MAX_RETRIES'],
  structuredOutput: ['SELFDEBUG_MODEL_STRUCTURED_OUTPUT'],
  inputPricePerMillion: ['SELFDEBUG_MODEL_PRICE_INPUT'],
  outputPricePerMillion: ['SELFDEBUG_MODEL_PRICE_OUTPUT'],
} as const satisfies Record<keyof ModelConfig, readonly string[]>;

/** For messages telling the operator where the key goes. */
export const apiKeyVariables = modelEnvironment.apiKey.join(' or ');

/**
 * Reads the model settings from the environment; every problem names the
 * variable it came from, and the API key's value is never echoed.
 */
export function loadModelConfig(env: Environment = process.env): ModelConfig {
  return readEnvironment(modelConfigSchema, modelEnvironment, env, ['apiKey']);
}

export function parseModelConfig(input: unknown, source = 'the model settings'): ModelConfig {
  const parsed = modelConfigSchema.safeParse(input ?? {});
  if (!parsed.success) throw new ConfigError(source, z.prettifyError(parsed.error));
  return parsed.data;
}
