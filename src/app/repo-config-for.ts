import type { Context } from 'probot';
import type { CodeHost } from '../code-host/code-host.js';
import { handlerConfig, parseRepoConfig } from '../config/repo-config.js';
import { SelfdebugError } from '../errors/selfdebug-error.js';
import type { RepoConfigResult } from './dependencies.js';

/** Reads `.github/selfdebug.yml` (org defaults and `_extends` included) into what handlers need. */
export function repoConfigLoader(codeHostFor: (context: Context) => CodeHost) {
  return async (context: Context): Promise<RepoConfigResult> => {
    let raw: unknown;
    try {
      raw = await codeHostFor(context).repoConfigFile();
    } catch (error) {
      if (error instanceof SelfdebugError && error.code === 'config')
        return { ok: false, message: error.message };
      throw error;
    }
    const parsed = parseRepoConfig(raw);
    return parsed.ok
      ? { ok: true, config: handlerConfig(parsed.config) }
      : { ok: false, message: parsed.message };
  };
}
