import OpenAI from 'openai';
import type { ModelConfig, StructuredOutputMode } from '../../config/model-config.js';
import { DEFAULT_CONTEXT_TOKENS, outputAllowance } from '../../model/context-window.js';
import type { LanguageModel, ModelRequest, ModelResponse, ModelWindow } from '../../model/language-model.js';
import { type Logger, silentLogger } from '../../util/logger.js';
import { realTimers, type Timers } from '../../util/timers.js';
import { reconnectingFetch } from '../http/reconnecting-fetch.js';
import { displayUrl, resolveApiKey } from './api-key.js';
import { CallDeadline } from './call-deadline.js';
import { chatClient } from './chat-client.js';
import { discoverServerFacts, type ServerFacts } from './discover-context.js';
import { finishAnswer } from './finish-answer.js';
import { mapOpenAIError } from './map-openai-error.js';
import { readCompletion } from './read-response.js';
import { type BodySettings, isReasoningModel, requestBody, type Sent } from './request-body.js';
import { defaultSleep, isRetryable, retryDelayMilliseconds, type Sleep } from './retry-policy.js';
import {
  processServerProfiles,
  profileKey,
  type ServerProfile,
  type ServerProfiles,
} from './server-profile.js';
import {
  isMaxTokensRejection,
  isStreamOptionsRejection,
  isStructuredOutputRejection,
  isToolsRejection,
} from './server-rejections.js';
import { weakerMode } from './structured-output.js';

const OPENAI_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAIChatModelOptions {
  sleep?: Sleep;
  /** In [0, 1); the backoff jitter. */
  random?: () => number;
  logger?: Logger;
  /** For the idle and total limits of each call. */
  timers?: Timers;
  /** What servers turned out to support; the process-wide cache unless a test passes its own. */
  profiles?: ServerProfiles;
  /** For the context-window questions (GET /models, /props, /api/show). */
  fetch?: typeof fetch;
}

/**
 * LanguageModel over any server speaking OpenAI's Chat Completions API. Every
 * answer is streamed and each try is bounded by idleness (no byte for
 * idleTimeoutSeconds) and a total cap, never by one fixed timeout, so a slow
 * model that keeps producing tokens is not cut off and restarted. Retries are
 * ours, not the SDK's (it is built with maxRetries 0). Features a server
 * refuses (a response_format, tools, stream_options, max_tokens) are dropped,
 * remembered per server and model, and the request is sent again at once.
 */
export class OpenAIChatModel implements LanguageModel {
  readonly model: string;
  readonly #config: ModelConfig;
  readonly #client: OpenAI;
  readonly #apiKey: string;
  readonly #rawBaseUrl: string;
  readonly #baseUrl: string;
  readonly #sleep: Sleep;
  readonly #random: () => number;
  readonly #logger: Logger;
  readonly #timers: Timers;
  readonly #profiles: ServerProfiles;
  readonly #profileKey: string;
  readonly #fetch: typeof fetch | undefined;
  /** A configured (not "auto") mode, stepped down in this instance only when the server refuses it. */
  #fixedMode: StructuredOutputMode | undefined;
  #maxCompletionTokens: boolean;
  #facts: Promise<ServerFacts> | undefined;

  /** Throws ModelAuthError when no key is configured for a server that needs one. */
  constructor(config: ModelConfig, options: OpenAIChatModelOptions = {}) {
    this.model = config.model;
    this.#config = config;
    this.#apiKey = resolveApiKey(config);
    this.#rawBaseUrl = config.baseUrl ?? OPENAI_BASE_URL;
    this.#baseUrl = displayUrl(this.#rawBaseUrl);
    this.#client = chatClient(config, this.#apiKey, this.#rawBaseUrl);
    this.#sleep = options.sleep ?? defaultSleep;
    this.#random = options.random ?? Math.random;
    this.#logger = options.logger ?? silentLogger;
    this.#timers = options.timers ?? realTimers;
    this.#profiles = options.profiles ?? processServerProfiles;
    this.#profileKey = profileKey(this.#rawBaseUrl, config.model);
    this.#fetch = options.fetch;
    this.#fixedMode = config.structuredOutput === 'auto' ? undefined : config.structuredOutput;
    this.#maxCompletionTokens = isReasoningModel(config.model);
  }

  /**
   * The structured output the next answer request uses: the configured mode, or
   * for "auto" what this server was found to accept (json_schema until refused).
   */
  get structuredOutput(): StructuredOutputMode {
    return this.#fixedMode ?? this.#profile().structuredOutput ?? 'json_schema';
  }

  get toolsEnabled(): boolean {
    if (this.#config.tools === 'off') return false;
    if (this.#config.tools === 'on') return true;
    return this.#profile().tools !== false;
  }

  /** What the server is known to support so far (for `doctor --model`). */
  get profile(): Readonly<ServerProfile> {
    return this.#profile();
  }

  async window(signal?: AbortSignal): Promise<ModelWindow> {
    const maxOutput = this.#config.maxOutputTokens;
    if (this.#config.contextTokens !== undefined) {
      const tokens = this.#config.contextTokens;
      return { contextTokens: tokens, outputTokens: outputAllowance(tokens, maxOutput), source: 'config' };
    }
    const known = this.#profile().contextTokens ?? (await this.serverFacts(signal)).contextTokens;
    const tokens = known?.tokens ?? DEFAULT_CONTEXT_TOKENS;
    return {
      contextTokens: tokens,
      outputTokens: outputAllowance(tokens, maxOutput),
      source: known ? 'server' : 'default',
    };
  }

  /** Model listing and context window, asked once per instance and cached per server. */
  serverFacts(signal?: AbortSignal): Promise<ServerFacts> {
    this.#facts ??= discoverServerFacts({
      baseUrl: this.#rawBaseUrl,
      model: this.model,
      headers: { authorization: `Bearer ${this.#apiKey}`, 'api-key': this.#apiKey },
      ...(this.#config.apiVersion === undefined ? {} : { query: { 'api-version': this.#config.apiVersion } }),
      fetch: this.#fetch ?? reconnectingFetch(),
      ...(signal ? { signal } : {}),
    }).then((facts) => {
      this.#profiles.update(this.#profileKey, { contextTokens: facts.contextTokens });
      return facts;
    });
    return this.#facts;
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    await this.#learnWindow(request.signal);
    let retries = 0;
    for (let tries = 1; ; tries++) {
      const offered = this.toolsEnabled ? (request.tools ?? []) : [];
      const sent: Sent = {
        mode: this.structuredOutput,
        offered: offered.length > 0,
        streamUsage: this.#profile().streamUsage !== false,
        maxCompletionTokens: this.#maxCompletionTokens,
      };
      const deadline = new CallDeadline({
        idleSeconds: this.#config.idleTimeoutSeconds,
        totalSeconds: this.#config.timeoutSeconds,
        timers: this.#timers,
        parent: request.signal,
      });
      try {
        return await this.#send(request, sent, deadline, offered);
      } catch (thrown) {
        const error = deadline.expired ?? thrown;
        throwIfAborted(request.signal);
        if (this.#stepDown(error, request, sent)) continue;
        await this.#backOff(error, request, retries, tries);
        retries += 1;
      } finally {
        deadline.dispose();
      }
    }
  }

  /** max_tokens must fit the window (vLLM refuses prompt + max_tokens > max_model_len), so it is learnt first. */
  async #learnWindow(signal: AbortSignal | undefined): Promise<void> {
    if (this.#config.contextTokens !== undefined || this.#profile().contextTokens !== undefined) return;
    await this.serverFacts(signal).catch(() => undefined);
    throwIfAborted(signal);
  }

  /** One try: the request as `sent` describes it, its streamed answer read under the deadline. */
  async #send(
    request: ModelRequest,
    sent: Sent,
    deadline: CallDeadline,
    offered: NonNullable<ModelRequest['tools']>,
  ): Promise<ModelResponse> {
    const raw = await this.#client.chat.completions
      .create(requestBody(request, this.#bodySettings(), sent), {
        signal: deadline.signal,
        // Ours fire first; the SDK's own timer only backs them up.
        timeout: Math.round(this.#config.timeoutSeconds * 1000) + 5000,
      })
      .asResponse();
    const answer = await readCompletion(raw, deadline, this.model);
    const toolNames = offered.map((tool) => tool.name);
    return finishAnswer(answer, request, toolNames);
  }

  /** Waits before the next try of a retryable failure, or throws it mapped once the retries are spent. */
  async #backOff(error: unknown, request: ModelRequest, retries: number, tries: number): Promise<void> {
    if (!isRetryable(error) || retries >= this.#config.maxRetries) {
      throw mapOpenAIError(error, {
        baseUrl: this.#baseUrl,
        model: this.model,
        tries,
        timeoutSeconds: this.#config.timeoutSeconds,
        idleTimeoutSeconds: this.#config.idleTimeoutSeconds,
        apiKey: this.#apiKey,
      });
    }
    const delay = retryDelayMilliseconds(error, retries, this.#random);
    this.#logger.warn(
      {
        purpose: request.purpose,
        model: this.model,
        retry: retries + 1,
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

  #profile(): Readonly<ServerProfile> {
    return this.#profiles.get(this.#profileKey);
  }

  #bodySettings(): BodySettings {
    return {
      model: this.model,
      temperature: this.#config.temperature,
      maxOutputTokens: this.#config.maxOutputTokens,
      contextTokens: this.#config.contextTokens ?? this.#profile().contextTokens?.tokens,
    };
  }

  /**
   * A refused feature is not a failure: note it and send again without it. Each
   * step changes what `#body` sends, so this cannot loop. Compared with what the
   * failed call sent, so two concurrent calls step down only once.
   */
  #stepDown(error: unknown, request: ModelRequest, sent: Sent): boolean {
    if (sent.offered && this.#config.tools !== 'on' && isToolsRejection(error)) {
      this.#profiles.update(this.#profileKey, { tools: false });
      this.#warn('tools', 'offered', 'none');
      return true;
    }
    if (request.output !== undefined && sent.mode !== 'none' && isStructuredOutputRejection(error)) {
      if (this.structuredOutput === sent.mode) {
        const next = weakerMode[sent.mode];
        if (this.#fixedMode === undefined)
          this.#profiles.update(this.#profileKey, { structuredOutput: next });
        else this.#fixedMode = next;
        this.#warn('structured output', sent.mode, next);
      }
      return true;
    }
    if (sent.streamUsage && isStreamOptionsRejection(error)) {
      this.#profiles.update(this.#profileKey, { streamUsage: false });
      this.#warn('stream_options', 'include_usage', 'none');
      return true;
    }
    if (!sent.maxCompletionTokens && isMaxTokensRejection(error)) {
      this.#maxCompletionTokens = true;
      this.#warn('output limit', 'max_tokens', 'max_completion_tokens');
      return true;
    }
    return false;
  }

  #warn(feature: string, refused: string, next: string): void {
    this.#logger.warn(
      { model: this.model, feature, refused, next },
      'model server refused a feature; using a fallback from now on',
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
