import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { StructuredOutputMode } from '../../config/model-config.js';
import { outputAllowance } from '../../model/context-window.js';
import type { ModelRequest } from '../../model/language-model.js';
import { toApiMessages, toApiTools } from './map-messages.js';
import { responseFormatFor, schemaInstruction } from './structured-output.js';

/**
 * What one try sends, of what a server may refuse: the adapter steps down
 * from these one by one and compares with what the failed try sent.
 */
export interface Sent {
  mode: StructuredOutputMode;
  offered: boolean;
  streamUsage: boolean;
  maxCompletionTokens: boolean;
}

/** The model's settings a request body needs; `contextTokens` when configured or learned from the server. */
export interface BodySettings {
  model: string;
  temperature: number;
  maxOutputTokens: number;
  contextTokens: number | undefined;
}

/**
 * OpenAI's reasoning models take max_completion_tokens and only the default
 * temperature (https://platform.openai.com/docs/guides/reasoning).
 */
export function isReasoningModel(model: string): boolean {
  return /^(o\d|gpt-5)/i.test(model.replace(/^.*\//, ''));
}

/** The streamed Chat Completions request for one try. */
export function requestBody(
  request: ModelRequest,
  settings: BodySettings,
  sent: Sent,
): ChatCompletionCreateParamsStreaming {
  const output = request.output;
  const responseFormat = output === undefined ? undefined : responseFormatFor(output, sent.mode);
  const instruction = output === undefined ? undefined : schemaInstruction(output, sent.mode);
  const maxTokens =
    settings.contextTokens === undefined
      ? settings.maxOutputTokens
      : outputAllowance(settings.contextTokens, settings.maxOutputTokens);
  return {
    model: settings.model,
    messages: toApiMessages(request.messages, instruction),
    ...(isReasoningModel(settings.model) ? {} : { temperature: settings.temperature }),
    ...(sent.maxCompletionTokens ? { max_completion_tokens: maxTokens } : { max_tokens: maxTokens }),
    stream: true,
    ...(sent.streamUsage ? { stream_options: { include_usage: true } } : {}),
    ...(sent.offered ? { tools: toApiTools(request.tools ?? []) } : {}),
    ...(responseFormat === undefined ? {} : { response_format: responseFormat }),
  };
}
