import OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { ModelConfig, StructuredOutputMode } from '../../config/model-config.js';
import type { LanguageModel, ModelRequest, ModelResponse } from '../../model/language-model.js';
import { type Logger, silentLogger } from '../../util/logger.js';
import { displayUrl, resolveApiKey } from './api-key.js';
import { toApiMessages, toApiTools, toModelResponse } from './map-messages.js';
import { mapOpenAIError } from './map-openai-error.js';
import { defaultSleep, isRetryable, retryDelayMilliseconds, type Sleep } from './retry-policy.js';
import {
  isStructuredOutputRejection,
  responseFormatFor,
  schemaInstruction,
  weakerMode,
} from './structured-output.js';

const OPENAI_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAIChatModelOptions {
  sleep?: Sleep;
  /** In [0, 1); the backoff jitter. */
  random?: () => number;
  logger?: Logger;
}

/**
 * LanguageModel over any server speaking OpenAI's Chat Completions API. Retries
 * are ours, not the SDK's (it is built with maxRetries 0), so every wait and every
 * failure goes through typed, testable code.
 */
export class OpenAIChatModel implements LanguageModel {
  readonly model: string;
  readonly #config: ModelConfig;
  readonly #client: OpenAI;
  readonly #apiKey: string;
  readonly #baseUrl: string;
  readonly #sleep: Sleep;
  readonly #random: () => number;
  readonly #logger: Logger;
  #structuredOutput: StructuredOutputMode;

  /** Throws ModelAuthError when no key is configured for a server that needs one. */
  constructor(config: ModelConfig, options: OpenAIChatModelOptions = {}) {
    this.model = config.model;
    this.#config = config;
    this.#apiKey = resolveApiKey(config);
    const baseUrl = config.baseUrl ?? OPENAI_BASE_URL;
    this.#baseUrl = displayUrl(baseUrl);
    this.#client = new OpenAI({ apiKey: this.#apiKey, baseURL: baseUrl, maxRetries: 0 });
    this.#sleep = options.sleep ?? defaultSleep;
    this.#random = options.random ?? Math.random;
    this.#logger = options.logger ?? silentLogger;
    this.#structuredOutput = config.structuredOutput;
  }

  /**
   * The structured output this instance asks for now: the configured mode, or a
   * weaker one once the server refused it. With json_object and none the schema
   * is sent as an instruction in the first system message instead.
   */
  get structuredOutput(): StructuredOutputMode {
    return this.#structuredOutput;
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    let retries = 0;
    let tries = 0;
    for (;;) {
      const mode = this.#structuredOutput;
      tries += 1;
      try {
        const completion = await this.#client.chat.completions.create(this.#body(request, mode), {
          signal: request.signal ?? null,
          timeout: Math.max(1, Math.round(this.#config.timeoutSeconds * 1000)),
        });
        return toModelResponse(completion, this.model);
      } catch (error) {
        throwIfAborted(request.signal);
        if (request.output !== undefined && mode !== 'none' && isStructuredOutputRejection(error)) {
          this.#downgrade(mode);
          continue;
        }
        if (!isRetryable(error) || retries >= this.#config.maxRetries) {
          throw mapOpenAIError(error, {
            baseUrl: this.#baseUrl,
            model: this.model,
            tries,
            timeoutSeconds: this.#config.timeoutSeconds,
            apiKey: this.#apiKey,
          });
        }
        const delay = retryDelayMilliseconds(error, retries, this.#random);
        retries += 1;
        this.#logger.warn(
          {
            purpose: request.purpose,
            model: this.model,
            retry: retries,
            delayMilliseconds: delay,
            ...describe(error),
          },
          'model request failed; retrying',
        );
        try {
          await this.#sleep(delay, request.signal);
        } catch (sleepError) {
          throwIfAborted(request.signal);
          throw sleepError;
        }
        throwIfAborted(request.signal);
      }
    }
  }

  #body(request: ModelRequest, mode: StructuredOutputMode): ChatCompletionCreateParamsNonStreaming {
    const output = request.output;
    const responseFormat = output === undefined ? undefined : responseFormatFor(output, mode);
    const instruction = output === undefined ? undefined : schemaInstruction(output, mode);
    const tools = request.tools ?? [];
    return {
      model: this.model,
      messages: toApiMessages(request.messages, instruction),
      temperature: this.#config.temperature,
      ...(tools.length > 0 ? { tools: toApiTools(tools) } : {}),
      ...(responseFormat === undefined ? {} : { response_format: responseFormat }),
    };
  }

  /** Compared with the mode the failed call used, so two concurrent calls step down only once. */
  #downgrade(refused: StructuredOutputMode): void {
    if (this.#structuredOutput !== refused) return;
    this.#structuredOutput = weakerMode[refused];
    this.#logger.warn(
      { model: this.model, refused, next: this.#structuredOutput },
      'model server refused this structured output mode; using a weaker one from now on',
    );
  }
}

/** An abort is the caller's decision: hand back its reason, never retry, never wrap. */
function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason;
}

function describe(error: unknown): { status?: number; error: string } {
  if (error instanceof OpenAI.APIError) {
    return { ...(error.status === undefined ? {} : { status: error.status }), error: error.constructor.name };
  }
  return { error: error instanceof Error ? error.name : typeof error };
}
