/**
 * Azure OpenAI's data-plane API, as documented:
 * - chat completions live under a deployment, not a model:
 *   POST {endpoint}/openai/deployments/{deployment-id}/chat/completions?api-version=2024-10-21
 * - `api-version` is a required query parameter; the key goes in the `api-key` header
 *   https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference#chat-completions
 * - structured outputs (json_schema) from api-version 2024-08-01-preview:
 *   https://learn.microsoft.com/en-us/azure/ai-foundry/openai/how-to/structured-outputs
 * The `model` field of the body is ignored; answers name the deployed model.
 */
import {
  answer,
  chatBody,
  type FakeModelServer,
  sendError,
  sendJson,
  startModelServer,
  think,
} from './shared.js';

export const AZURE_KEY = 'azure-fake-key-0123456789';

export function startAzureOpenAIFake(
  options: { deployment?: string; underlyingModel?: string } = {},
): Promise<FakeModelServer> {
  const deployment = options.deployment ?? 'selfdebug-gpt-4o';
  const underlying = options.underlyingModel ?? 'gpt-4o-2024-08-06';
  const prefix = `/openai/deployments/${deployment}`;
  return startModelServer(async (request, response) => {
    if (!request.path.startsWith('/openai/')) return false;
    const version = request.query.get('api-version');
    if (version === null) {
      // Azure answers a request without api-version with 404 "Resource not found".
      sendJson(response, 404, { error: { code: '404', message: 'Resource not found' } });
      return true;
    }
    if (request.headers['api-key'] !== AZURE_KEY) {
      sendJson(response, 401, {
        error: {
          code: '401',
          message:
            'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
        },
      });
      return true;
    }
    if (request.method !== 'POST' || request.path !== `${prefix}/chat/completions`) {
      sendJson(response, 404, {
        error: {
          code: 'DeploymentNotFound',
          message: 'The API deployment for this resource does not exist.',
        },
      });
      return true;
    }
    const body = chatBody(request);
    if (body.response_format?.type === 'json_schema' && version < '2024-08-01') {
      sendError(
        response,
        400,
        'response_format json_schema is only supported from api-version 2024-08-01-preview.',
        {
          param: 'response_format',
        },
      );
      return true;
    }
    await answer(response, body, think(body), { usage: true, usageChunk: 'separate' }, underlying);
    return true;
  }, `/openai/deployments/${deployment}`);
}
