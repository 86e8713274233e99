/**
 * vLLM's OpenAI-compatible server
 * (https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html):
 * - GET /v1/models gives each model's `max_model_len`
 * - a request whose prompt plus `max_tokens` exceeds it is refused: "This model's maximum
 *   context length is N tokens. However, you requested M tokens (P in the messages, C in the completion)."
 * - structured outputs / guided decoding through `response_format` json_schema and json_object
 *   (https://docs.vllm.ai/en/latest/features/structured_outputs.html)
 * - tools with tool_choice "auto" need `--enable-auto-tool-choice --tool-call-parser …`, otherwise
 *   HTTP 400 (https://docs.vllm.ai/en/latest/features/tool_calling.html)
 * - reasoning models stream `reasoning_content` (https://docs.vllm.ai/en/latest/features/reasoning_outputs.html)
 */
import {
  answer,
  chatBody,
  estimateTokens,
  type FakeModelServer,
  isChat,
  sendError,
  sendJson,
  startModelServer,
  think,
} from './shared.js';

export function startVllmFake(
  options: { model?: string; maxModelLen?: number; autoToolChoice?: boolean; reasoning?: boolean } = {},
): Promise<FakeModelServer> {
  const model = options.model ?? 'Qwen/Qwen2.5-Coder-7B-Instruct';
  const maxModelLen = options.maxModelLen ?? 32768;
  return startModelServer(async (request, response) => {
    if (request.method === 'GET' && request.path === '/v1/models') {
      sendJson(response, 200, {
        object: 'list',
        data: [
          {
            id: model,
            object: 'model',
            created: 1,
            owned_by: 'vllm',
            root: model,
            max_model_len: maxModelLen,
          },
        ],
      });
      return true;
    }
    if (!isChat(request)) return false;
    const body = chatBody(request);
    if (body.model !== model) {
      sendError(response, 404, `The model \`${body.model}\` does not exist.`, {
        type: 'NotFoundError',
        code: 404,
      });
      return true;
    }
    if ((body.tools?.length ?? 0) > 0 && !options.autoToolChoice && (body.tool_choice ?? 'auto') === 'auto') {
      sendError(
        response,
        400,
        '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
        {
          type: 'BadRequestError',
          code: 400,
        },
      );
      return true;
    }
    const prompt = estimateTokens(body.messages) + estimateTokens(body.tools ?? []);
    const completion = body.max_tokens ?? body.max_completion_tokens ?? 16;
    if (prompt + completion > maxModelLen) {
      sendError(
        response,
        400,
        `This model's maximum context length is ${maxModelLen} tokens. However, you requested ${prompt + completion} tokens (${prompt} in the messages, ${completion} in the completion). Please reduce the length of the messages or completion.`,
        { type: 'BadRequestError', code: 400 },
      );
      return true;
    }
    const guided =
      body.response_format?.type === 'json_schema' || body.response_format?.type === 'json_object';
    const said = think(body, { forceJson: guided });
    if (options.reasoning) said.reasoning = 'The user wants JSON. I will read the schema first.';
    await answer(response, body, said, {
      usage: true,
      usageChunk: 'separate',
      reasoningField: 'reasoning_content',
    });
    return true;
  });
}
