import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RepoConfigFileError } from '../errors/index.js';
import { loadAppConfig } from './app-config.js';
import type { Environment } from './read-environment.js';
import {
  applyOperatorCeilings,
  defaultRepoConfig,
  parseRepoConfigText,
  REPO_CONFIG_PATH,
  type RepoConfig,
} from './repo-config.js';

export interface FolderConfig {
  config: RepoConfig;
  /** Where it was read from (relative to the folder), or null when the folder has none. */
  path: string | null;
  /** One sentence per setting the operator's ceilings changed (host network, memory, hosts). */
  notes: string[];
}

const CANDIDATES = [REPO_CONFIG_PATH, '.github/selfdebug.yaml'];

/**
 * The same `.github/selfdebug.yml` the App reads, from a folder: the one
 * `selfdebug fix` is fixing, or the Action's checkout. A project configured
 * for the App runs the same way on the command line and in a workflow. The file comes with the code, so the same ceilings apply as in the
 * App (SELFDEBUG_ALLOW_HOST_NETWORK, SELFDEBUG_MAX_MEMORY_MB, …): a folder
 * someone else wrote cannot hand itself the host's network.
 */
export async function readFolderConfig(dir: string, env: Environment): Promise<FolderConfig> {
  for (const path of CANDIDATES) {
    const text = await readFile(join(dir, path), 'utf8').catch(() => null);
    if (text === null) continue;
    const parsed = parseRepoConfigText(text, path);
    if (!parsed.ok)
      throw new RepoConfigFileError(plainText(parsed.message).replace('on the default branch ', ''));
    const { config, notes } = applyOperatorCeilings(parsed.config, loadAppConfig(env));
    return { config, path, notes: notes.map(plainText) };
  }
  return { config: defaultRepoConfig, path: null, notes: [] };
}

/**
 * The file's messages are Markdown for GitHub comments; a terminal shows them
 * without the emphasis, and a fenced block as indented lines.
 */
export function plainText(markdown: string): string {
  return markdown
    .replace(/\*\*/g, '')
    .replace(/^(`{3,})[\w-]*\n([\s\S]*?)\n\1$/gm, (_block, _fence, body: string) =>
      body
        .split('\n')
        .map((line) => (line === '' ? '' : `  ${line}`))
        .join('\n'),
    );
}
