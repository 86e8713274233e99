import { readFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import { loadAppConfig } from '../config/app-config.js';
import { plainText } from '../config/folder-config.js';
import { loadSandboxConfig } from '../config/load-config.js';
import { loadModelConfig } from '../config/model-config.js';
import type { Environment } from '../config/read-environment.js';
import {
  applyOperatorCeilings,
  parseRepoConfigText,
  REPO_CONFIG_PATH,
  type RepoConfig,
} from '../config/repo-config.js';
import { commandOptions, warnOfCiSecrets } from './config-workflows.js';
import type { OutputStream } from './output-stream.js';

const CONFIG_USAGE = [
  'Usage: selfdebug config check [FILE] [--format text|markdown] [--repo DIR] [--base BRANCH]',
  '',
  `Validates FILE (default: ./${REPO_CONFIG_PATH}) with the App's own messages and prints the`,
  'effective configuration: every default filled in, the sandbox and model settings this',
  "environment's operator values give (SELFDEBUG_SANDBOX_*, SELFDEBUG_MODEL), and the operator's",
  'ceilings applied (SELFDEBUG_MAX_MEMORY_MB, SELFDEBUG_ALLOW_HOST_NETWORK, …), each change noted.',
  '',
  'Problems are plain text (--format text, the default); --format markdown prints them as the App',
  'posts them on GitHub (bold, fenced blocks).',
  '',
  "It also reads the repository's .github/workflows (DIR: --repo, or the folder holding FILE's .github",
  "folder) and warns on stderr about each workflow that would run on selfdebug's branches or pull",
  'requests (against --base, default main) and reads secrets: CI runs code a model wrote (docs/ci-secrets.md).',
  '',
  'Exit codes: 0 valid, 2 invalid (or a usage error).',
].join('\n');

export interface ConfigIO {
  stdout: OutputStream;
  stderr: OutputStream;
  env: Environment;
}

/** `selfdebug config check [FILE]`: 0 valid, 2 invalid or misused. */
export async function runConfigCommand(argv: readonly string[], io: ConfigIO): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout.write(`${CONFIG_USAGE}\n`);
    return 0;
  }
  const options = commandOptions(argv);
  const { format } = options;
  const [action, file = REPO_CONFIG_PATH, ...extra] = options.rest;
  const problem =
    format === null ? '--format takes "text" or "markdown".' : usageProblem(action, file, extra);
  if (problem !== null) {
    io.stderr.write(`selfdebug config: ${problem}\n${CONFIG_USAGE}\n`);
    return 2;
  }
  await warnOfCiSecrets({ file, ...options, format: format ?? 'text' }, io.stderr);
  const text = await readConfigText(file, io.stderr);
  if (text === null) return 2;
  const parsed = parseRepoConfigText(text, file);
  if (!parsed.ok) {
    const message = parsed.message.replace('on the default branch ', '');
    io.stderr.write(`${format === 'markdown' ? message : plainText(message)}\n`);
    return 2;
  }
  let effective: ReturnType<typeof applyOperatorCeilings>;
  try {
    effective = applyOperatorCeilings(parsed.config, loadAppConfig(io.env));
  } catch (error) {
    io.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  io.stdout.write(`${effectiveReport(file, effective, io.env)}\n`);
  return 0;
}

function usageProblem(action: string | undefined, file: string, extra: string[]): string | null {
  if (action === undefined) return 'Missing "check".';
  if (action !== 'check') return `Unknown action "${action}": only "check" exists.`;
  if (file.startsWith('-')) return `Unknown option "${file}".`;
  if (extra.length > 0) return `"config check" takes one FILE, got also: ${extra.join(' ')}.`;
  return null;
}

/** The file's text, or null once `stderr` says why it could not be read. */
async function readConfigText(file: string, stderr: OutputStream): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code ?? String(error);
    stderr.write(
      `selfdebug config: cannot read ${file} (${code}). ` +
        (file === REPO_CONFIG_PATH
          ? `Run this in the repository's top folder, or give the file: selfdebug config check path/to/selfdebug.yml\n`
          : 'Check the path.\n'),
    );
    return null;
  }
}

/** "valid", what the operator's ceilings changed, and the effective configuration as YAML. */
function effectiveReport(
  file: string,
  effective: ReturnType<typeof applyOperatorCeilings>,
  env: Environment,
): string {
  const lines = [`✔ ${file} is valid.`, ''];
  if (effective.notes.length > 0) {
    lines.push("Changed by this App's ceilings:");
    for (const note of effective.notes) lines.push(`  - ${plainText(note).replace(/`/g, '')}`);
    lines.push('');
  }
  lines.push(
    '# The effective configuration: defaults filled in, unset sandbox and model keys',
    "# from this environment's operator settings, ceilings applied.",
    stringify(withOperatorValues(effective.config, env)).trimEnd(),
  );
  return lines.join('\n');
}

/** Unset sandbox and model keys keep the operator's values: shown as such, where the environment's settings are valid. */
function withOperatorValues(config: RepoConfig, env: Environment): RepoConfig {
  let sandbox: Partial<RepoConfig['sandbox']> = {};
  let model: Partial<RepoConfig['model']> = {};
  try {
    const operator = loadSandboxConfig(env);
    sandbox = {
      image: operator.image,
      memory_mb: operator.memoryMb,
      workspace_mb: operator.workspaceMb,
      cpus: operator.cpus,
      pids_limit: operator.pidsLimit,
      timeout_seconds: operator.commandTimeoutSeconds,
      network: operator.network,
    };
  } catch {}
  try {
    const operator = loadModelConfig(env);
    model = {
      name: operator.model,
      temperature: operator.temperature,
      max_output_tokens: operator.maxOutputTokens,
      structured_output: operator.structuredOutput,
      tools: operator.tools,
      ...(operator.contextTokens === undefined ? {} : { context_tokens: operator.contextTokens }),
    };
  } catch {}
  const defined = <Value extends object>(value: Value) =>
    Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<Value>;
  return {
    ...config,
    sandbox: { ...sandbox, ...defined(config.sandbox) } as RepoConfig['sandbox'],
    model: { ...model, ...defined(config.model) } as RepoConfig['model'],
  };
}
