import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitHubCodeHost } from '../../src/adapters/github/github-code-host.js';
import { GitHubNotFoundError } from '../../src/errors/github-errors.js';
import { assertGitHubMocksDone, blockNetwork, githubApi, testOctokit } from '../helpers/github-api.js';

const repo = '/repos/octo-org/app';

function host() {
  return new GitHubCodeHost(testOctokit(), { owner: 'octo-org', repo: 'app' });
}

beforeEach(() => blockNetwork());
afterEach(() => assertGitHubMocksDone());

describe("GitHubCodeHost's ActionCodeHost methods", () => {
  it("reads a run's workflow file and every job of its latest attempt, the running one too", async () => {
    githubApi().get(`${repo}/actions/runs/7`).reply(200, { id: 7, path: '.github/workflows/ci.yml' });
    githubApi()
      .get(`${repo}/actions/runs/7/jobs`)
      .query({ filter: 'latest', per_page: 100 })
      .reply(200, {
        total_count: 2,
        jobs: [
          {
            id: 1,
            name: 'build (18)',
            status: 'in_progress',
            conclusion: null,
            runner_name: 'GitHub Actions 7',
            steps: [{ name: 'Test', number: 4, status: 'completed', conclusion: 'failure' }],
          },
          { id: 2, name: 'lint', status: 'completed', conclusion: 'success', runner_name: null },
        ],
      });

    await expect(host().workflowRun(7)).resolves.toEqual({
      path: '.github/workflows/ci.yml',
      jobs: [
        {
          id: 1,
          name: 'build (18)',
          status: 'in_progress',
          conclusion: null,
          runnerName: 'GitHub Actions 7',
          steps: [{ name: 'Test', number: 4, conclusion: 'failure' }],
        },
        { id: 2, name: 'lint', status: 'completed', conclusion: 'success', runnerName: null, steps: [] },
      ],
    });
  });

  it("finds the open pull requests from a fork's branch, with their head commit and base", async () => {
    githubApi()
      .get(`${repo}/pulls`)
      .query({ state: 'open', head: 'forker:patch-1' })
      .reply(200, [{ number: 12, head: { ref: 'patch-1', sha: 'a'.repeat(40) }, base: { ref: 'main' } }]);

    await expect(host().openPullRequestsFrom('forker', 'patch-1')).resolves.toEqual([
      { number: 12, headSha: 'a'.repeat(40), base: 'main' },
    ]);
  });

  it("lists a pull request's files with their patches, across pages", async () => {
    const next = `<https://api.github.com${repo}/pulls/12/files?per_page=100&page=2>; rel="next"`;
    githubApi()
      .get(`${repo}/pulls/12/files`)
      .query({ per_page: 100 })
      .reply(200, [{ filename: 'src/x.txt', patch: '@@ -1 +1 @@' }], { link: next })
      .get(`${repo}/pulls/12/files`)
      .query({ per_page: 100, page: 2 })
      .reply(200, [{ filename: 'logo.png' }]);

    await expect(host().pullRequestFiles(12)).resolves.toEqual([
      { filename: 'src/x.txt', patch: '@@ -1 +1 @@' },
      { filename: 'logo.png', patch: undefined },
    ]);
  });

  it('names what failed in the typed error, as for every other call', async () => {
    githubApi().get(`${repo}/actions/runs/8`).reply(404, { message: 'Not Found' });

    const error = await host()
      .workflowRun(8)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitHubNotFoundError);
    expect((error as Error).message).toContain(
      'GitHub found nothing while reading workflow run 8 of octo-org/app',
    );
  });
});
