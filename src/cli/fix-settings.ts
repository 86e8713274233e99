import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { z } from 'zod';
import { loadLanguageModel } from '../compose/language-model.js';
import { loadSetupExtras } from '../compose/setup-extras.js';
import { loadSandboxConfig, parseSandboxConfig } from '../config/load-config.js';
import { loadModelConfig, type ModelConfig, parseModelConfig } from '../config/model-config.js';
import type { Environment } from '../config/read-environment.js';
import { loopLimitsFrom, modelOverrides, sandboxOverrides } from '../config/repo-config.js';
import type { SandboxConfig } from '../config/sandbox-config.js';
import type { SetupExtras } from '../config/setup-extras.js';
import { ConfigError } from '../errors/index.js';
import { type LoopLimits, loopLimitsSchema, type ModelPrices } from '../loop/task.js';
import type { LanguageModel } from '../model/language-model.js';
import { type FixOptions, UsageError } from './fix-options.js';
import type { FolderConfig } from './fix-repo-config.js';

/** Everything `selfdebug fix` runs with, after the environment, the folder's file and the flags are merged and checked. */
export interface FixSettings {
  command: string;
  description: string;
  sandbox: SandboxConfig;
  model: ModelConfig;
  limits: LoopLimits;
  prices: ModelPrices;
  /** The operator's setup variables and certificates, with `--allow-host`'s hosts among the mirrors. */
  setupExtras: SetupExtras;
}

/**
 * The environment first, then the folder's `.github/selfdebug.yml`, then the
 * flags; every value checked by the same schemas as the App's.
 */
export function resolveSettings(options: FixOptions, env: Environment, folder: FolderConfig): FixSettings {
  const source = folder.path ? `the command-line options and ${folder.path}` : 'the command-line options';
  const command = options.command ?? folder.config.command;
  if (command === undefined) {
    throw new UsageError(
      'Missing --command: give the command that fails, e.g. --command "npm test" ' +
        '(or set `command` in .github/selfdebug.yml in that folder).',
    );
  }
  const sandbox = sandboxSettings(options, env, folder, source);
  const model = modelSettings(options, env, folder, source);
  const limits = loopLimits(options, folder, sandbox, source);
  const extras = loadSetupExtras(sandbox);
  return {
    setupExtras: { ...extras, mirrorHosts: [...extras.mirrorHosts, ...options.allowHosts] },
    command,
    description: options.description ?? `The command \`${command}\` fails.`,
    sandbox,
    model,
    limits,
    prices: { inputPerMillion: model.inputPricePerMillion, outputPerMillion: model.outputPricePerMillion },
  };
}

function sandboxSettings(
  options: FixOptions,
  env: Environment,
  folder: FolderConfig,
  source: string,
): SandboxConfig {
  return parseSandboxConfig(
    {
      ...loadSandboxConfig(env),
      ...sandboxOverrides(folder.config),
      ...(options.sandbox === undefined ? {} : { kind: options.sandbox }),
      ...(options.image === undefined ? {} : { image: options.image }),
      ...(options.timeoutSeconds === undefined ? {} : { commandTimeoutSeconds: options.timeoutSeconds }),
      ...(options.caCerts === undefined ? {} : { extraCaCerts: resolve(options.caCerts) }),
      ...(options.setupEnvFile === undefined ? {} : { setupEnvFile: resolve(options.setupEnvFile) }),
    },
    source,
  );
}

function modelSettings(
  options: FixOptions,
  env: Environment,
  folder: FolderConfig,
  source: string,
): ModelConfig {
  return parseModelConfig(
    {
      ...loadModelConfig(env),
      ...modelOverrides(folder.config),
      ...(options.model === undefined ? {} : { model: options.model }),
      ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
    },
    source,
  );
}

function loopLimits(
  options: FixOptions,
  folder: FolderConfig,
  sandbox: SandboxConfig,
  source: string,
): LoopLimits {
  const limits = loopLimitsSchema.safeParse({
    ...loopLimitsFrom(
      folder.config,
      options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts },
    ),
    // One per-run time limit for both: the flag, else SELFDEBUG_SANDBOX_TIMEOUT_SECONDS, else its default.
    commandTimeoutSeconds: sandbox.commandTimeoutSeconds,
  });
  if (!limits.success) throw new ConfigError(source, z.prettifyError(limits.error));
  return limits.data;
}

export async function createModel(options: FixOptions, config: ModelConfig): Promise<LanguageModel> {
  if (options.replay !== undefined) {
    const { parseReplayFile } = await import('../model/replay-file.js');
    let text: string;
    try {
      text = await readFile(options.replay, 'utf8');
    } catch (error) {
      const why = error instanceof Error && 'code' in error ? String(error.code) : String(error);
      throw new UsageError(
        `Cannot read the replay file ${options.replay} (${why}). Check the path given to --replay.`,
      );
    }
    return parseReplayFile(text, `the replay file ${options.replay}`);
  }
  // Loaded on demand (in compose): --replay runs never load the OpenAI SDK.
  return loadLanguageModel(config);
}
