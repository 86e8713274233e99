import { z } from 'zod';
import { parseSandboxConfig } from '../config/load-config.js';
import { type ModelConfig, type ModelConfigInput, parseModelConfig } from '../config/model-config.js';
import { loopLimitsFrom, modelOverrides, type RepoConfig, sandboxOverrides } from '../config/repo-config.js';
import type { SandboxConfig, SandboxConfigInput } from '../config/sandbox-config.js';
import { ConfigError } from '../errors/index.js';
import { type LoopLimits, loopLimitsSchema, type ModelPrices } from '../loop/task.js';

/** The sandbox, the model, the loop's limits and the model's prices one fix runs with. */
export interface RunSettings {
  sandbox: SandboxConfig;
  model: ModelConfig;
  limits: LoopLimits;
  prices: ModelPrices;
}

/** What a door itself decides: a CLI flag, an Action input, a job's `/selfdebug` option. */
interface DoorOverrides {
  sandbox?: Partial<SandboxConfigInput>;
  model?: Partial<ModelConfigInput>;
  limits?: {
    maxAttempts?: number | undefined;
    maxCostUsd?: number | undefined;
    /** The loop's time limit per command, when the door keeps its own (the App's); else the sandbox's. */
    commandTimeoutSeconds?: number | undefined;
  };
}

/** The layers, lowest first: the schemas' defaults lie under them all. */
export interface SettingsLayers {
  /** The operator's settings (the App's or the command's environment); the Action has no operator model. */
  operator: { sandbox: Partial<SandboxConfigInput>; model: Partial<ModelConfigInput> };
  /** The repository's (or the folder's) `.github/selfdebug.yml`, after the App's ceilings where they apply. */
  repo: RepoConfig;
  door: DoorOverrides;
  /** Names the settings in an error: what to look at when a value is refused. */
  source: string;
}

/**
 * The one settings merger of every door, with one precedence order:
 * defaults < operator < repository config < door overrides
 * (docs/settings-precedence.md). The loop's command time limit is the
 * sandbox's, so one value governs each command run, unless the door keeps
 * its own (the App's, as it always has).
 */
export function mergeSettings(layers: SettingsLayers): RunSettings {
  const { operator, repo, door, source } = layers;
  const sandbox = parseSandboxConfig(
    { ...operator.sandbox, ...sandboxOverrides(repo), ...definedOnly(door.sandbox ?? {}) },
    source,
  );
  const model = parseModelConfig(
    { ...operator.model, ...modelOverrides(repo), ...definedOnly(door.model ?? {}) },
    source,
  );
  const { maxAttempts, maxCostUsd, commandTimeoutSeconds } = door.limits ?? {};
  const limits = loopLimitsSchema.safeParse({
    ...loopLimitsFrom(repo, maxAttempts === undefined ? {} : { maxAttempts }),
    ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
    commandTimeoutSeconds: commandTimeoutSeconds ?? sandbox.commandTimeoutSeconds,
  });
  if (!limits.success) throw new ConfigError(source, z.prettifyError(limits.error));
  return { sandbox, model, limits: limits.data, prices: modelPrices(model) };
}

/** The model's price object, as the loop counts spend: the one place it is built from the settings. */
export function modelPrices(
  model: Pick<ModelConfig, 'inputPricePerMillion' | 'outputPricePerMillion'>,
): ModelPrices {
  return { inputPerMillion: model.inputPricePerMillion, outputPerMillion: model.outputPricePerMillion };
}

/** A door's option left unset keeps the layer below it. */
function definedOnly<Value extends object>(value: Value): Partial<Value> {
  return Object.fromEntries(
    Object.entries(value).filter(([, entry]) => entry !== undefined),
  ) as Partial<Value>;
}
