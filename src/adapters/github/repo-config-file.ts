import { ConfigError, GitHubApiError } from '../../errors/index.js';
import type { GitHubOctokit } from './octokit.js';

const CONFIG_PATH = '.github/selfdebug.yml';

/**
 * Reads `.github/selfdebug.yml` through Probot's config plugin, which falls
 * back to the organisation's `.github` repository and follows `_extends`.
 * The plugin merges into `{}` even when no file exists, so absence is read
 * from its list of files, each with `config: null` when missing.
 */
export async function readRepoConfigFile(
  octokit: GitHubOctokit,
  repository: { owner: string; repo: string },
): Promise<unknown> {
  const { owner, repo } = repository;
  try {
    const result = await octokit.config.get({ owner, repo, path: CONFIG_PATH });
    if (result.files.every((file) => file.config === null)) return null;
    return result.config;
  } catch (error) {
    // GitHub's refusals come already mapped, by the Octokit's hook (useTypedErrors).
    if (error instanceof GitHubApiError) throw error;
    // Everything else the plugin throws is about a file's content: invalid
    // YAML, a scalar instead of a mapping, a bad or circular `_extends`.
    throw new ConfigError(`${CONFIG_PATH} of ${owner}/${repo}`, describe(error), { cause: error });
  }
}

/** The plugin's message names the file's URL; the YAML parser's says where in it. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `\n${error.cause.message}` : '';
  return `${error.message.replace(/^\[@probot\/octokit-plugin-config\] /, '')}${cause}`;
}
