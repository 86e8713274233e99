import { loadSetupExtras } from '../compose/setup-extras.js';
import { loadSandboxConfig, parseSandboxConfig } from '../config/load-config.js';
import { type ModelConfig, parseModelConfig } from '../config/model-config.js';
import type { Environment } from '../config/read-environment.js';
import { loopLimitsFrom, modelOverrides, type RepoConfig, sandboxOverrides } from '../config/repo-config.js';
import type { SandboxConfig } from '../config/sandbox-config.js';
import type { SetupExtras } from '../config/setup-extras.js';
import { type LoopLimits, loopLimitsSchema } from '../loop/task.js';
import type { ActionInputs } from './inputs.js';

/** The sandbox, the model and the loop's limits of one run: the action's inputs over .github/selfdebug.yml. */
export interface ActionSettings {
  sandbox: SandboxConfig;
  model: ModelConfig;
  limits: LoopLimits;
  /** SELFDEBUG_SETUP_ENV_FILE and SELFDEBUG_EXTRA_CA_CERTS of the runner, read as the App reads them. */
  setupExtras: SetupExtras;
}

const SOURCE = 'the action inputs and .github/selfdebug.yml';

/** Reads the settings; `warn` hears of a setting that has no effect here. */
export function actionSettings(
  inputs: ActionInputs,
  config: RepoConfig,
  warn: (message: string) => void,
  env: Environment = {},
): ActionSettings {
  const sandbox = sandboxSettings(inputs, config, env);
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
  return { sandbox, model, limits, setupExtras: loadSetupExtras(sandbox) };
}

/**
 * The runner's environment first, read as the App and the CLI read theirs
 * (SELFDEBUG_SANDBOX_*, SELFDEBUG_TOOLCHAIN_IMAGES, SELFDEBUG_EXTRA_CA_CERTS…;
 * the sidecars' image fixed there, so the `image` input never runs them),
 * then .github/selfdebug.yml, then the inputs.
 */
function sandboxSettings(inputs: ActionInputs, config: RepoConfig, env: Environment): SandboxConfig {
  return parseSandboxConfig(
    {
      ...loadSandboxConfig(env),
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
