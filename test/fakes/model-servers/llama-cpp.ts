/**
 * llama.cpp's `llama-server`, as its README documents
 * (https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md):
 * - GET /props → `default_generation_settings.n_ctx`, the context size the server runs with (-c)
 * - GET /v1/models lists the one loaded model (its alias); the request's `model` is not checked
 * - `response_format` {type: json_schema | json_object} is enforced with a grammar: the
 *   sampler can only produce JSON of that schema, so a request that also offers tools
 *   never gets a tool call back
 * - tools (OpenAI-style function calling) need the server started with `--jinja`;
 *   without it the request fails ("tools param requires --jinja flag", HTTP 500)
 * - streamed answers end with a chunk carrying `usage` (and llama.cpp's `timings`)
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

export function startLlamaCppFake(
  options: { contextSize?: number; jinja?: boolean; alias?: string } = {},
): Promise<FakeModelServer> {
  const contextSize = options.contextSize ?? 8192;
  const alias = options.alias ?? 'qwen2.5-coder-7b-instruct-q4_k_m.gguf';
  return startModelServer(async (request, response) => {
    if (request.method === 'GET' && request.path === '/health') {
      sendJson(response, 200, { status: 'ok' });
      return true;
    }
    if (request.method === 'GET' && request.path === '/props') {
      sendJson(response, 200, {
        default_generation_settings: { n_ctx: contextSize, params: { n_predict: -1, temperature: 0.8 } },
        total_slots: 1,
        model_path: `/models/${alias}`,
        chat_template: '{{ messages }}',
      });
      return true;
    }
    if (request.method === 'GET' && request.path === '/v1/models') {
      sendJson(response, 200, {
        object: 'list',
        data: [{ id: alias, object: 'model', owned_by: 'llamacpp', meta: { n_ctx_train: 32768 } }],
      });
      return true;
    }
    if (!isChat(request)) return false;
    const body = chatBody(request);
    if ((body.tools?.length ?? 0) > 0 && !options.jinja) {
      sendError(response, 500, 'tools param requires --jinja flag', { type: 'server_error', code: 500 });
      return true;
    }
    // The grammar wins over everything: with a response format the answer is JSON, never a tool call.
    const grammar =
      body.response_format?.type === 'json_schema' || body.response_format?.type === 'json_object';
    await answer(
      response,
      body,
      think(body, { forceJson: grammar }),
      { usage: true, usageChunk: 'with-finish' },
      alias,
    );
    return true;
  });
}
