import type { ProbeCheck, ProbeOptions } from '../adapters/openai/index.js';
import type { ModelConfig } from '../config/model-config.js';
import type { LanguageModel } from '../model/language-model.js';

/**
 * The model server the settings name, for a command (`selfdebug fix`,
 * `eval`, the Action). The OpenAI SDK is loaded here, on first use, so a
 * replayed or scripted run never loads it. Throws ModelAuthError, naming
 * the variables to set, when no key is configured for a server that needs one.
 */
export async function loadLanguageModel(config: ModelConfig): Promise<LanguageModel> {
  const { createLanguageModel } = await import('../adapters/openai/index.js');
  return createLanguageModel(config);
}

/** The configured server, ready to be asked what selfdebug needs (`doctor --model`, `doctor`). */
export interface ModelServerProbe {
  /** The configured model name. */
  model: string;
  probe(options?: ProbeOptions): Promise<ProbeCheck[]>;
}

/** Throws, before asking anything, when the settings themselves are wrong (as loadLanguageModel). */
export async function loadModelServerProbe(config: ModelConfig): Promise<ModelServerProbe> {
  const { createLanguageModel, probeModelServer } = await import('../adapters/openai/index.js');
  const model = createLanguageModel(config);
  return { model: model.model, probe: (options = {}) => probeModelServer(model, options) };
}
