/**
 * OpenAI's Chat Completions API, as documented:
 * - streaming, and `stream_options: {include_usage: true}` adding a last chunk
 *   with empty `choices` and the usage: https://platform.openai.com/docs/api-reference/chat/create
 * - structured outputs: with `strict: true` every object needs
 *   `additionalProperties: false` and every property listed in `required`:
 *   https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
 * - reasoning models (o1, o3, o4-mini, gpt-5…) refuse `max_tokens` (use
 *   `max_completion_tokens`) and any temperature but the default:
 *   https://platform.openai.com/docs/guides/reasoning
 * - a refusal comes in `message.refusal` / `delta.refusal`, content empty:
 *   https://platform.openai.com/docs/guides/structured-outputs#refusals
 * GET /v1/models lists ids but no context length: https://platform.openai.com/docs/api-reference/models/list
 */
import {
  answer,
  chatBody,
  type FakeModelServer,
  isChat,
  type RecordedModelRequest,
  sendError,
  sendJson,
  startModelServer,
  think,
} from './shared.js';

export const OPENAI_KEY = 'sk-fake-openai-0123456789';

export function startOpenAIFake(options: { models?: string[] } = {}): Promise<FakeModelServer> {
  const models = options.models ?? ['gpt-4.1-mini', 'o4-mini'];
  return startModelServer(async (request, response) => {
    if (request.headers.authorization !== `Bearer ${OPENAI_KEY}`) {
      sendError(response, 401, 'Incorrect API key provided.', { code: 'invalid_api_key' });
      return true;
    }
    if (request.method === 'GET' && request.path === '/v1/models') {
      sendJson(response, 200, {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'openai' })),
      });
      return true;
    }
    if (!isChat(request)) return false;
    const body = chatBody(request);
    if (!models.includes(body.model ?? '')) {
      sendError(
        response,
        404,
        `The model \`${body.model}\` does not exist or you do not have access to it.`,
        {
          code: 'model_not_found',
        },
      );
      return true;
    }
    const refusal = refuseParameters(request);
    if (refusal) {
      sendError(response, 400, refusal.message, { param: refusal.param, code: 'unsupported_parameter' });
      return true;
    }
    await answer(response, body, think(body), { usage: true, usageChunk: 'separate' });
    return true;
  });
}

function refuseParameters(request: RecordedModelRequest): { message: string; param: string } | undefined {
  const body = chatBody(request);
  if (/^(o\d|gpt-5)/.test(body.model ?? '')) {
    if (body.max_tokens !== undefined) {
      return {
        param: 'max_tokens',
        message:
          "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      };
    }
    if (body.temperature !== undefined && body.temperature !== 1) {
      return {
        param: 'temperature',
        message: `Unsupported value: 'temperature' does not support ${body.temperature} with this model. Only the default (1) value is supported.`,
      };
    }
  }
  const format = body.response_format;
  if (format?.type === 'json_schema' && format.json_schema?.strict === true) {
    const problem = strictProblem(format.json_schema.schema, '');
    if (problem) {
      return {
        param: 'response_format',
        message: `Invalid schema for response_format '${format.json_schema.name}': ${problem}`,
      };
    }
  }
  return undefined;
}

/** The strict-mode rules a schema breaks first, in OpenAI's words; undefined when it follows them. */
export function strictProblem(schema: unknown, path: string): string | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const node = schema as Record<string, unknown>;
  if (node.type === 'object') {
    if (node.additionalProperties !== false) {
      return `In context=(${path}), 'additionalProperties' is required to be supplied and to be false.`;
    }
    const properties = Object.keys((node.properties ?? {}) as object);
    const required = Array.isArray(node.required) ? node.required : [];
    const missing = properties.find((key) => !required.includes(key));
    if (missing)
      return `In context=(${path}), 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
    for (const [key, value] of Object.entries((node.properties ?? {}) as Record<string, unknown>)) {
      const inner = strictProblem(value, `${path}properties.${key}`);
      if (inner) return inner;
    }
  }
  if (node.type === 'array') return strictProblem(node.items, `${path}items`);
  return undefined;
}
