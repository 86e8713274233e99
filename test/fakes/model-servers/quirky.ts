/**
 * A compatible server with the rough edges several real ones have, each documented:
 * - no `usage` at all, streamed or not, and `stream_options` ignored (LocalAI and
 *   older llama.cpp / text-generation-webui builds; OpenAI documents usage in streams as opt-in:
 *   https://platform.openai.com/docs/api-reference/chat/create#chat-create-stream_options)
 * - `reasoning_content` deltas before the answer (DeepSeek's API:
 *   https://api-docs.deepseek.com/guides/reasoning_model)
 * - tool calls written as text in `content`, `<tool_call>{"name":…,"arguments":…}</tool_call>`,
 *   as Hermes/Qwen templates produce when the server has no tool parser for them
 *   (https://docs.vllm.ai/en/latest/features/tool_calling.html#hermes-models-hermes)
 * - `response_format` json_schema refused (only json_object), as in servers predating
 *   structured outputs (https://platform.openai.com/docs/guides/structured-outputs#json-mode)
 * It serves any model name and answers GET /v1/models without context lengths.
 */
import {
  answer,
  chatBody,
  type FakeModelServer,
  isChat,
  sendError,
  sendJson,
  startModelServer,
  think,
} from './shared.js';

export function startQuirkyFake(
  options: { chunkDelayMs?: number; chunkCharacters?: number } = {},
): Promise<FakeModelServer> {
  return startModelServer(async (request, response) => {
    if (request.method === 'GET' && request.path === '/v1/models') {
      sendJson(response, 200, { object: 'list', data: [{ id: 'quirky-model', object: 'model' }] });
      return true;
    }
    if (!isChat(request)) return false;
    const body = chatBody(request);
    if (body.response_format?.type === 'json_schema') {
      sendError(response, 400, "response_format type 'json_schema' is not supported; use 'json_object'", {
        param: 'response_format',
      });
      return true;
    }
    const said = think(body);
    said.reasoning = 'Let me think about which tool helps here.';
    if (said.toolCalls?.length) {
      said.content = said.toolCalls
        .map(
          (call) =>
            `<tool_call>\n${JSON.stringify({ name: call.name, arguments: call.arguments })}\n</tool_call>`,
        )
        .join('\n');
      delete said.toolCalls;
    }
    await answer(response, body, said, {
      usage: false,
      usageChunk: 'separate',
      reasoningField: 'reasoning_content',
      ...(options.chunkDelayMs ? { chunkDelayMs: options.chunkDelayMs } : {}),
      ...(options.chunkCharacters ? { chunkCharacters: options.chunkCharacters } : {}),
    });
    return true;
  });
}
