import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { loadSandboxConfig, parseSandboxConfig } from '../config/load-config.js';
import { loadModelConfig, type ModelConfig, parseModelConfig } from '../config/model-config.js';
import type { Environment } from '../config/read-environment.js';
import type { SandboxConfig } from '../config/sandbox-config.js';
import { ConfigError } from '../errors/config-errors.js';
import { type LoopLimits, loopLimitsSchema, type ModelPrices } from '../loop/task.js';
import type { LanguageModel } from '../model/language-model.js';
import { type FixOptions, UsageError } from './fix-options.js';

/** Everything `selfdebug fix` runs with, after the environment and the flags are merged and checked. */
export interface FixSettings {
  sandbox: SandboxConfig;
  model: ModelConfig;
  limits: LoopLimits;
  prices: ModelPrices;
}

/** The environment first, then the flags; every value checked by the same schemas as the App's. */
export function resolveSettings(options: FixOptions, env: Environment): FixSettings {
  const source = 'the command-line options';
  const fromEnvironment = loadSandboxConfig(env);
  const sandbox = parseSandboxConfig(
    {
      ...fromEnvironment,
      ...(options.sandbox === undefined ? {} : { kind: options.sandbox }),
      ...(options.image === undefined ? {} : { image: options.image }),
      ...(options.timeoutSeconds === undefined ? {} : { commandTimeoutSeconds: options.timeoutSeconds }),
    },
    source,
  );
  const model = parseModelConfig(
    {
      ...loadModelConfig(env),
      ...(options.model === undefined ? {} : { model: options.model }),
      ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
    },
    source,
  );
  const limits = loopLimitsSchema.safeParse({
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    // One per-run time limit for both: the flag, else SELFDEBUG_SANDBOX_TIMEOUT_SECONDS, else its default.
    commandTimeoutSeconds: sandbox.commandTimeoutSeconds,
  });
  if (!limits.success) throw new ConfigError(source, z.prettifyError(limits.error));
  return {
    sandbox,
    model,
    limits: limits.data,
    prices: { inputPerMillion: model.inputPricePerMillion, outputPerMillion: model.outputPricePerMillion },
  };
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
  // Loaded on demand: --replay runs never load the OpenAI SDK.
  const { createLanguageModel } = await import('../adapters/openai/index.js');
  return createLanguageModel(config);
}
