import { loadSetupExtras } from '../compose/setup-extras.js';
import { loadSandboxConfig } from '../config/load-config.js';
import type { Environment } from '../config/read-environment.js';
import type { RepoConfig } from '../config/repo-config.js';
import type { SetupExtras } from '../config/setup-extras.js';
import { mergeSettings, type RunSettings } from '../fix/index.js';
import type { ActionInputs } from './inputs.js';

/** The sandbox, the model and the loop's limits of one run: the action's inputs over .github/selfdebug.yml. */
export interface ActionSettings extends RunSettings {
  /** SELFDEBUG_SETUP_ENV_FILE and SELFDEBUG_EXTRA_CA_CERTS of the runner, read as the App reads them. */
  setupExtras: SetupExtras;
}

const SOURCE = 'the action inputs and .github/selfdebug.yml';

/**
 * Reads the settings through the one merger (docs/settings-precedence.md): the runner's environment
 * first, read as the App and the CLI read theirs (SELFDEBUG_SANDBOX_*, SELFDEBUG_TOOLCHAIN_IMAGES,
 * SELFDEBUG_EXTRA_CA_CERTS…; the sidecars' image fixed there, so the `image` input never runs them),
 * then .github/selfdebug.yml, then the inputs. The model has no operator layer: it is the inputs'.
 * `warn` hears of a setting that has no effect here.
 */
export function actionSettings(
  inputs: ActionInputs,
  config: RepoConfig,
  warn: (message: string) => void,
  env: Environment = {},
): ActionSettings {
  const settings = mergeSettings({
    operator: { sandbox: loadSandboxConfig(env), model: {} },
    repo: config,
    door: {
      sandbox: {
        kind: inputs.sandbox === 'runner' ? 'local' : 'docker',
        // What the model runs never reaches out, whatever .github/selfdebug.yml asks: the workspace may hold
        // what earlier steps wrote (credentials files), and a pull request may edit that config.
        network: 'none',
        image: inputs.image,
      },
      model: {
        apiKey: inputs['api-key'],
        baseUrl: inputs['base-url'],
        model: inputs.model,
        inputPricePerMillion: inputs['input-price'],
        outputPricePerMillion: inputs['output-price'],
      },
      limits: { maxAttempts: inputs['max-attempts'], maxCostUsd: inputs['budget-usd'] },
    },
    source: SOURCE,
  });
  const { limits, model } = settings;
  if (limits.maxCostUsd > 0 && model.inputPricePerMillion === 0 && model.outputPricePerMillion === 0)
    warn('budget-usd has no effect without input-price and output-price (USD per million tokens).');
  if (config.sandbox.network === 'host')
    warn(
      'sandbox.network "host" of .github/selfdebug.yml is ignored: the action runs commands with no network.',
    );
  return { ...settings, setupExtras: loadSetupExtras(settings.sandbox) };
}
