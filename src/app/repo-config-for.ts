import type { Context } from 'probot';
import type { CodeHost } from '../code-host/code-host.js';
import { handlerConfig, readRepoConfig } from '../config/repo-config.js';
import type { RepoConfigResult } from './dependencies.js';

/** Reads `.github/selfdebug.yml` (org defaults and `_extends` included) into what handlers need. */
export function repoConfigLoader(codeHostFor: (context: Context) => CodeHost) {
  return async (context: Context): Promise<RepoConfigResult> => {
    const read = await readRepoConfig(codeHostFor(context));
    return read.ok ? { ok: true, config: handlerConfig(read.config) } : read;
  };
}
