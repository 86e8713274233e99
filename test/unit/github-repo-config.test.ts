import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitHubCodeHost } from '../../src/adapters/github/github-code-host.js';
import { ConfigError } from '../../src/errors/config-errors.js';
import { GitHubApiError } from '../../src/errors/github-errors.js';
import { assertGitHubMocksDone, blockNetwork, githubApi, testOctokit } from '../helpers/github-api.js';

const configPath = '/contents/.github%2Fselfdebug.yml';
const repoFile = `/repos/octo-org/flaky-scripts${configPath}`;
const orgFile = `/repos/octo-org/.github${configPath}`;
// The config plugin asks for the raw file; GitHub answers it as text.
const yamlHeaders = { 'content-type': 'text/plain; charset=utf-8' };

function host() {
  return new GitHubCodeHost(testOctokit(), { owner: 'octo-org', repo: 'flaky-scripts' });
}

beforeEach(() => blockNetwork());
afterEach(() => assertGitHubMocksDone());

describe('GitHubCodeHost.repoConfigFile', () => {
  it('reads the repository file and merges the file it extends', async () => {
    githubApi()
      .get(repoFile)
      .reply(200, 'allowed_users: [mona]\n_extends: .github\n', yamlHeaders)
      .get(orgFile)
      .reply(200, 'max_attempts: 3\nallowed_users: [hubot]\n', yamlHeaders);

    await expect(host().repoConfigFile()).resolves.toEqual({ max_attempts: 3, allowed_users: ['mona'] });
  });

  it("falls back to the organisation's .github repository", async () => {
    githubApi()
      .get(repoFile)
      .reply(404, { message: 'Not Found' })
      .get(orgFile)
      .reply(200, 'max_attempts: 2\n', yamlHeaders);

    await expect(host().repoConfigFile()).resolves.toEqual({ max_attempts: 2 });
  });

  it('answers null when neither repository has the file', async () => {
    githubApi()
      .get(repoFile)
      .reply(404, { message: 'Not Found' })
      .get(orgFile)
      .reply(404, { message: 'Not Found' });

    await expect(host().repoConfigFile()).resolves.toBeNull();
  });

  it('names the file when its YAML does not parse', async () => {
    githubApi().get(repoFile).reply(200, 'allowed_users: [mona\nmax_attempts: 3\n', yamlHeaders);

    const error = await host()
      .repoConfigFile()
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain('.github/selfdebug.yml of octo-org/flaky-scripts');
    expect((error as ConfigError).message).toContain('invalid YAML');
  });

  it('maps a refusal to read the file to a GitHub error', async () => {
    githubApi().get(repoFile).reply(403, { message: 'Resource not accessible by integration' });

    const error = await host()
      .repoConfigFile()
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(GitHubApiError);
    expect(error).toMatchObject({ status: 403, retryable: false });
  });
});
