import { basename, dirname } from 'node:path';
import { workflowsReadingSecrets } from '../ci-logs/index.js';
import { Redactor, renderCiSecretsWarning } from '../report/index.js';
import { OWN_BRANCH_EXAMPLES } from '../workspace/selfdebug-branches.js';
import { readCheckoutWorkflows } from '../workspace/workflow-files.js';
import type { OutputStream } from './output-stream.js';

export interface ConfigCheckOptions {
  format: 'text' | 'markdown' | null;
  /** The repository folder whose workflows are read; null: worked out from FILE. */
  repo: string | null;
  /** The branch selfdebug's pull requests target: `pull_request` filters match it. */
  base: string;
  rest: string[];
}

/** `--format`, `--repo` and `--base` (each also as `--name=value`) taken out of the arguments. */
export function commandOptions(argv: readonly string[]): ConfigCheckOptions {
  const values: Record<string, string> = { format: 'text', base: 'main' };
  const rest: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    const name = /^--(format|repo|base)(?:=|$)/.exec(arg)?.[1];
    if (name === undefined) rest.push(arg);
    else values[name] = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : (argv[++index] ?? '');
  }
  const format = values.format === 'text' || values.format === 'markdown' ? values.format : null;
  return { format, repo: values.repo ?? null, base: values.base || 'main', rest };
}

/**
 * When selfdebug's branches would start workflows that read secrets, says
 * which and what to do. The repository is `--repo`, or the folder above
 * FILE's `.github`; a FILE elsewhere names no repository, so nothing is read.
 */
export async function warnOfCiSecrets(
  options: { file: string; repo: string | null; base: string; format: 'text' | 'markdown' },
  stderr: OutputStream,
): Promise<void> {
  const folder = dirname(options.file);
  const repo = options.repo ?? (basename(folder) === '.github' ? dirname(folder) : null);
  if (repo === null) return;
  const found = workflowsReadingSecrets(await readCheckoutWorkflows(repo), {
    branches: OWN_BRANCH_EXAMPLES,
    baseBranch: options.base,
  });
  const warning = renderCiSecretsWarning(found, Redactor.none, options.format);
  if (warning !== null) stderr.write(`${warning}\n\n`);
}
