/**
 * Ollama's OpenAI compatibility (https://docs.ollama.com/api/openai-compatibility):
 * /v1/chat/completions with streaming and `stream_options.include_usage`, tools,
 * and `response_format` json_object / json_schema (structured outputs); no API key.
 * Its native POST /api/show gives `model_info["<architecture>.context_length"]`
 * and the Modelfile's `parameters` (https://docs.ollama.com/api-reference/show-model-details);
 * a model without the tools capability is refused with "<model> does not support tools".
 * Thinking models stream their thoughts in `reasoning` (https://docs.ollama.com/capabilities/thinking).
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

export function startOllamaFake(
  options: { model?: string; contextLength?: number; numCtx?: number; tools?: boolean } = {},
): Promise<FakeModelServer> {
  const model = options.model ?? 'qwen2.5-coder:7b';
  return startModelServer(async (request, response) => {
    if (request.method === 'GET' && request.path === '/') {
      response.end('Ollama is running');
      return true;
    }
    if (request.method === 'GET' && request.path === '/v1/models') {
      sendJson(response, 200, {
        object: 'list',
        data: [{ id: model, object: 'model', created: 1, owned_by: 'library' }],
      });
      return true;
    }
    if (request.method === 'POST' && request.path === '/api/show') {
      const asked = (request.body as { model?: string } | null)?.model;
      if (asked !== model) {
        sendJson(response, 404, { error: `model '${asked}' not found` });
        return true;
      }
      sendJson(response, 200, {
        parameters: options.numCtx
          ? `num_ctx                        ${options.numCtx}\nstop "<|im_end|>"`
          : 'stop "<|im_end|>"',
        details: { family: 'qwen2', parameter_size: '7.6B', quantization_level: 'Q4_K_M' },
        model_info: {
          'general.architecture': 'qwen2',
          'qwen2.context_length': options.contextLength ?? 32768,
          'qwen2.embedding_length': 3584,
        },
        capabilities: options.tools === false ? ['completion'] : ['completion', 'tools'],
      });
      return true;
    }
    if (!isChat(request)) return false;
    const body = chatBody(request);
    if (body.model !== model) {
      sendError(response, 404, `model "${body.model}" not found, try pulling it first`, {
        type: 'api_error',
      });
      return true;
    }
    if ((body.tools?.length ?? 0) > 0 && options.tools === false) {
      sendError(response, 400, `registry.ollama.ai/library/${model} does not support tools`, {
        type: 'api_error',
      });
      return true;
    }
    await answer(response, body, think(body), {
      usage: true,
      usageChunk: 'separate',
      reasoningField: 'reasoning',
    });
    return true;
  });
}
