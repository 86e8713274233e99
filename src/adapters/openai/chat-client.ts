import OpenAI from 'openai';
import type { ModelConfig } from '../../config/model-config.js';
import { reconnectingFetch } from '../http/reconnecting-fetch.js';

/**
 * The SDK client the model sends its chat completions with. Retries are the
 * model's own (maxRetries 0 here). A request that met a keep-alive connection
 * the server had closed was never answered: it is sent again at once,
 * outside maxRetries (a chat completion or a model listing has no side effects).
 */
export function chatClient(config: ModelConfig, apiKey: string, baseUrl: string): OpenAI {
  return new OpenAI({
    apiKey,
    baseURL: baseUrl,
    maxRetries: 0,
    fetch: reconnectingFetch({ methods: 'any' }),
    // Azure OpenAI's deployment URLs want the version as a query parameter and the key in api-key.
    ...(config.apiVersion === undefined
      ? {}
      : {
          defaultQuery: { 'api-version': config.apiVersion },
          defaultHeaders: { 'api-key': apiKey },
        }),
  });
}
