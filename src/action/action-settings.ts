import { loadSandboxConfig, parseSandboxConfig } from '../config/load-config.js';
import { type ModelConfig, parseModelConfig } from '../config/model-config.js';
import type { Environment } from '../config/read-environment.js';
import { loopLimitsFrom, modelOverrides, type RepoConfig, sandboxOverrides } from '../config/repo-config.js';
import type { SandboxConfig } from '../config/sandbox-config.js';
import { type LoopLimits, loopLimitsSchema } from '../loop/task.js';
import type { ActionInputs } from './inputs.js';

/** The sandbox, the model and the loop's limits of one run: the action's inputs over .github/selfdebug.yml. */
export interface ActionSettings {
  sandbox: SandboxConfig;
  model: ModelConfig;
  limits: LoopLimits;
}

const SOURCE = 'the action inputs and .github/selfdebug.yml';

/** Reads the settings; `warn` hears of a setting that has no effect here. */
export function actionSettings(
  inputs: ActionInputs,
  config: RepoConfig,
  warn: (message: string) => void,
  env: Environment = {},
): ActionSettings {
  const sandbox = {
    ...sandboxSettings(inputs, config),
    // The operator's table, as the App and the CLI read it (a bad entry names the variable).
    toolchainImages: loadSandboxConfig({ SELFDEBUG_TOOLCHAIN_IMAGES: env.SELFDEBUG_TOOLCHAIN_IMAGES })
      .toolchainImages,
  };
  const model = modelSettings(inputs, config);
  const limits = loopLimitsSchema.parse({
    ...loopLimitsFrom(
      config,
      inputs['max-attempts'] === undefined ? {} : { maxAttempts: inputs['max-attempts'] },
    ),
    ...(inputs['budget-usd'] === undefined ? {} : { maxCostUsd: inputs['budget-usd'] }),
    commandTimeoutSeconds: sandbox.commandTimeoutSeconds,
  });
  if (limits.maxCostUsd > 0 && model.inputPricePerMillion === 0 && model.outputPricePerMillion === 0)
    warn('budget-usd has no effect without input-price and output-price (USD per million tokens).');
  if (config.sandbox.network === 'host')
    warn(
      'sandbox.network "host" of .github/selfdebug.yml is ignored: the action runs commands with no network.',
    );
  return { sandbox, model, limits };
}

function sandboxSettings(inputs: ActionInputs, config: RepoConfig): SandboxConfig {
  return parseSandboxConfig(
    {
      ...sandboxOverrides(config),
      kind: inputs.sandbox === 'runner' ? 'local' : 'docker',
      // What the model runs never reaches out, whatever .github/selfdebug.yml asks: the workspace may hold
      // what earlier steps wrote (credentials files), and a pull request may edit that config.
      network: 'none',
      ...(inputs.image === undefined ? {} : { image: inputs.image }),
    },
    SOURCE,
  );
}

function modelSettings(inputs: ActionInputs, config: RepoConfig): ModelConfig {
  return parseModelConfig(
    {
      ...modelOverrides(config),
      apiKey: inputs['api-key'],
      ...(inputs['base-url'] === undefined ? {} : { baseUrl: inputs['base-url'] }),
      ...(inputs.model === undefined ? {} : { model: inputs.model }),
      ...(inputs['input-price'] === undefined ? {} : { inputPricePerMillion: inputs['input-price'] }),
      ...(inputs['output-price'] === undefined ? {} : { outputPricePerMillion: inputs['output-price'] }),
    },
    SOURCE,
  );
}
