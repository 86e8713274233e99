import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { loadLanguageModel } from '../compose/language-model.js';
import { loadSetupExtras } from '../compose/setup-extras.js';
import type { FolderConfig } from '../config/folder-config.js';
import { loadSandboxConfig } from '../config/load-config.js';
import { loadModelConfig, type ModelConfig } from '../config/model-config.js';
import type { Environment } from '../config/read-environment.js';
import type { SetupExtras } from '../config/setup-extras.js';
import { mergeSettings, type RunSettings } from '../fix/index.js';
import type { LanguageModel } from '../model/language-model.js';
import { type FixOptions, UsageError } from './fix-options.js';

/** Everything `selfdebug fix` runs with, after the environment, the folder's file and the flags are merged and checked. */
export interface FixSettings extends RunSettings {
  command: string;
  description: string;
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
  const { sandbox, model, limits, prices } = mergeSettings({
    operator: { sandbox: loadSandboxConfig(env), model: loadModelConfig(env) },
    repo: folder.config,
    door: {
      sandbox: {
        kind: options.sandbox,
        image: options.image,
        commandTimeoutSeconds: options.timeoutSeconds,
        extraCaCerts: options.caCerts === undefined ? undefined : resolve(options.caCerts),
        setupEnvFile: options.setupEnvFile === undefined ? undefined : resolve(options.setupEnvFile),
      },
      model: { model: options.model, baseUrl: options.baseUrl },
      limits: { maxAttempts: options.maxAttempts },
    },
    source,
  });
  const extras = loadSetupExtras(sandbox);
  return {
    setupExtras: { ...extras, mirrorHosts: [...extras.mirrorHosts, ...options.allowHosts] },
    command,
    description: options.description ?? `The command \`${command}\` fails.`,
    sandbox,
    model,
    limits,
    prices,
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
  // Loaded on demand (in compose): --replay runs never load the OpenAI SDK.
  return loadLanguageModel(config);
}
