import { z } from 'zod';
import { ConfigError } from '../errors/index.js';
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
  /**
   * The most one model call may take, streaming included. A cap, not the usual
   * limit: a stalled server is caught much sooner by `idleTimeoutSeconds`.
   */
  timeoutSeconds: z.number().positive().max(3600).default(600),
  /**
   * How long a call may go without a byte from the server (headers, a token, a
   * reasoning token). A slow model that keeps producing tokens is never cut off.
   */
  idleTimeoutSeconds: z.number().positive().max(3600).default(90),
  /** API retries (429, 5xx, stalls); they never count as loop attempts. */
  maxRetries: z.int().min(0).max(10).default(4),
  /**
   * The structured output to ask for. "auto" starts from json_schema and keeps,
   * per server and model, the weaker mode a server forced; a fixed mode overrides that.
   */
  structuredOutput: z.enum(['auto', 'json_schema', 'json_object', 'none']).default('auto'),
  /** Whether to offer tools: "auto" offers them until the server refuses, "off" never does. */
  tools: z.enum(['auto', 'on', 'off']).default('auto'),
  /** The model's context window; unset: what the server reports, else 16,384. */
  contextTokens: z.int().min(1024).max(10_000_000).optional(),
  /** The most tokens one answer may have; sent as max_tokens (max_completion_tokens for OpenAI reasoning models). */
  maxOutputTokens: z.int().min(64).max(1_000_000).default(4096),
  /** Azure OpenAI's api-version (e.g. "2024-10-21") for deployment URLs; sent as a query parameter. */
  apiVersion: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}(-preview)?$/, 'must look like "2024-10-21" or "2025-04-01-preview"')
    .optional(),
  /** USD per million tokens; 0 means unknown, so no cost is shown. */
  inputPricePerMillion: z.number().min(0).default(0),
  outputPricePerMillion: z.number().min(0).default(0),
});

export type ModelConfig = z.infer<typeof modelConfigSchema>;
export type ModelConfigInput = z.input<typeof modelConfigSchema>;
/** The mode a request actually uses; "auto" is resolved before anything is sent. */
export type StructuredOutputMode = Exclude<ModelConfig['structuredOutput'], 'auto'>;

/** Environment variables for each setting, first set one wins; unset variables keep the default. */
export const modelEnvironment = {
  apiKey: ['SELFDEBUG_MODEL_API_KEY', 'OPENAI_API_KEY'],
  baseUrl: ['SELFDEBUG_MODEL_BASE_URL', 'OPENAI_BASE_URL'],
  model: ['SELFDEBUG_MODEL'],
  temperature: ['SELFDEBUG_MODEL_TEMPERATURE'],
  timeoutSeconds: ['SELFDEBUG_MODEL_TIMEOUT_SECONDS'],
  idleTimeoutSeconds: ['SELFDEBUG_MODEL_IDLE_TIMEOUT_SECONDS'],
  maxRetries: ['SELFDEBUG_MODEL_MAX_RETRIES'],
  structuredOutput: ['SELFDEBUG_MODEL_STRUCTURED_OUTPUT'],
  tools: ['SELFDEBUG_MODEL_TOOLS'],
  contextTokens: ['SELFDEBUG_MODEL_CONTEXT_TOKENS'],
  maxOutputTokens: ['SELFDEBUG_MODEL_MAX_OUTPUT_TOKENS'],
  apiVersion: ['SELFDEBUG_MODEL_API_VERSION', 'OPENAI_API_VERSION'],
  inputPricePerMillion: ['SELFDEBUG_MODEL_PRICE_INPUT'],
  outputPricePerMillion: ['SELFDEBUG_MODEL_PRICE_OUTPUT'],
} as const satisfies Record<keyof ModelConfig, readonly string[]>;

/** For messages telling the operator where the key goes. */
export const apiKeyVariables = modelEnvironment.apiKey.join(' or ');

/**
 * Reads the model settings from the environment; every problem names the
 * variable it came from, and the API key's value is never echoed.
 */
export function loadModelConfig(env: Environment): ModelConfig {
  return readEnvironment(modelConfigSchema, modelEnvironment, env, ['apiKey']);
}

export function parseModelConfig(input: unknown, source = 'the model settings'): ModelConfig {
  const parsed = modelConfigSchema.safeParse(input ?? {});
  if (!parsed.success) throw new ConfigError(source, z.prettifyError(parsed.error));
  return parsed.data;
}
