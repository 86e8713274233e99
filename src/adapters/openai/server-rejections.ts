import { APIError } from 'openai';

/*
 * Whether a server refused a feature rather than the request. There is no
 * standard error code for these across OpenAI, vLLM, llama.cpp, Ollama and
 * LiteLLM, so these few functions read the server's words; nothing outside the
 * adapter ever does. llama.cpp answers some of them with HTTP 500, so they are
 * checked before the retry policy sees the error.
 */

function refusal(error: unknown): APIError | undefined {
  if (!(error instanceof APIError) || error.status === undefined) return undefined;
  return [400, 422, 500, 501].includes(error.status) ? error : undefined;
}

/** e.g. llama.cpp "tools param requires --jinja flag", vLLM '"auto" tool choice requires --enable-auto-tool-choice', Ollama "does not support tools". */
export function isToolsRejection(error: unknown): boolean {
  const refused = refusal(error);
  if (refused === undefined) return false;
  if (refused.param === 'tools' || refused.param === 'tool_choice') return true;
  return /\btools?\b.*(not supported|does not support|requires|unsupported)|does not support tools|tool.choice|--jinja|enable-auto-tool-choice/i.test(
    refused.message,
  );
}

/** OpenAI says param "response_format"; others name the feature in their message. */
export function isStructuredOutputRejection(error: unknown): boolean {
  const refused = refusal(error);
  if (refused === undefined || refused.status === 500) return false;
  if (refused.param === 'response_format') return true;
  return /response_format|json_schema|json_object|structured output|guided_json/i.test(refused.message);
}

/** Servers that predate `stream_options` reject it as an unknown field. */
export function isStreamOptionsRejection(error: unknown): boolean {
  const refused = refusal(error);
  if (refused === undefined || refused.status === 500) return false;
  return refused.param === 'stream_options' || /stream_options|include_usage/i.test(refused.message);
}

/** OpenAI's reasoning models refuse max_tokens and name its replacement. */
export function isMaxTokensRejection(error: unknown): boolean {
  const refused = refusal(error);
  if (refused === undefined || refused.status === 500) return false;
  return refused.param === 'max_tokens' || /max_completion_tokens/i.test(refused.message);
}
