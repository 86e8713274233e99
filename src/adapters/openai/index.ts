import type { ModelConfig } from '../../config/model-config.js';
import { OpenAIChatModel, type OpenAIChatModelOptions } from './openai-chat-model.js';

export { isLoopbackUrl, PLACEHOLDER_API_KEY } from './api-key.js';
export { OpenAIChatModel, type OpenAIChatModelOptions } from './openai-chat-model.js';

/**
 * The composition root's way to a LanguageModel. Throws ModelAuthError, naming
 * the variables to set, when no key is configured for a server that needs one.
 */
export function createLanguageModel(
  config: ModelConfig,
  options: OpenAIChatModelOptions = {},
): OpenAIChatModel {
  return new OpenAIChatModel(config, options);
}

export type { ProbeOptions } from './probe-server.js';
export { type ProbeCheck, probeModelServer } from './probe-server.js';
export { ServerProfiles } from './server-profile.js';
