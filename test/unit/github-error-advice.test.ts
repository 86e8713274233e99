import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitHubCodeHost } from '../../src/adapters/github/github-code-host.js';
import type { ActionCodeHost } from '../../src/code-host/code-host.js';
import { actionCodeHost } from '../../src/compose/action-clients.js';
import { GitHubApiError, GitHubNotFoundError } from '../../src/errors/github-errors.js';
import {
  assertGitHubMocksDone,
  blockNetwork,
  GITHUB_API,
  githubApi,
  TEST_TOKEN,
  testOctokit,
} from '../helpers/github-api.js';

/** The two clients as their doors build them: the App's (an installation's Octokit) and the Action's. */
const clients: Record<'app' | 'action', () => ActionCodeHost> = {
  app: () => new GitHubCodeHost(testOctokit(), { owner: 'octo-org', repo: 'app' }),
  action: () => actionCodeHost({ token: TEST_TOKEN, apiUrl: GITHUB_API, repository: 'octo-org/app' }),
};

const PULL = { title: 'Fix', body: 'fixed', head: 'selfdebug/run-1-1', base: 'main', draft: false };

/** Opening a pull request answered with `status`; returns what the client threw. */
async function openingRefused(
  client: ActionCodeHost,
  status: number,
  headers: Record<string, string> = {},
): Promise<Error> {
  githubApi()
    .post('/repos/octo-org/app/pulls', PULL)
    .reply(status, { message: 'Resource not accessible by integration' }, headers);
  const error = await client.createPullRequest(PULL).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(status === 404 ? GitHubNotFoundError : GitHubApiError);
  return error as Error;
}

beforeEach(() => blockNetwork());
afterEach(() => assertGitHubMocksDone());

describe("GitHub's refusals advise whoever holds the credential, chosen where the client is built", () => {
  it("tells the App's installer to accept the new permissions, and the workflow's author to add them to the workflow", async () => {
    const needs = { 'x-accepted-github-permissions': 'pull_requests=write' };
    const app = await openingRefused(clients.app(), 403, needs);
    const action = await openingRefused(clients.action(), 403, needs);

    expect(app.message).toContain('opening a pull request from selfdebug/run-1-1 in octo-org/app');
    expect(app.message).toContain('the App lacks the "pull_requests: write" permission.');
    expect(app.message).toContain('Accept the new permissions in the installation settings');
    expect(action.message).toContain('opening a pull request from selfdebug/run-1-1 in octo-org/app');
    expect(action.message).toContain('the token lacks the "pull-requests: write" permission.');
    expect(action.message).toContain(
      'Add `permissions:` with `pull-requests: write` to the workflow (or to the job that runs selfdebug)',
    );
    expect(action.message).toContain('Allow GitHub Actions to create and approve pull requests');
    expect(action.message).not.toMatch(/installation settings|the App\b/);
  });

  it('names what a pull request needs when GitHub names no permission', async () => {
    const action = await openingRefused(clients.action(), 403);

    expect(action.message).toContain('the token lacks permission for it.');
    expect(action.message).toContain('(a pull request: `contents: write`, `pull-requests: write`)');
  });

  it('points a refused or unreaching workflow token at the `github-token` input, never at an App', async () => {
    const [app401, action401] = [
      await openingRefused(clients.app(), 401),
      await openingRefused(clients.action(), 401),
    ];
    const [app404, action404] = [
      await openingRefused(clients.app(), 404),
      await openingRefused(clients.action(), 404),
    ];

    expect(app401.message).toContain("GitHub refused the App's credentials while opening a pull request");
    expect(app401.message).toContain('Check the App ID and private key');
    expect(action401.message).toContain(
      'GitHub refused the token in `github-token` while opening a pull request',
    );
    expect(action401.message).toContain("The workflow's GITHUB_TOKEN lasts only while its job runs");
    expect(app404.message).toContain('the App is installed on the repository with access to it.');
    expect(action404.message).toContain(
      "the token in `github-token` can reach it (the workflow's GITHUB_TOKEN reaches only the workflow's own repository).",
    );
    for (const error of [action401, action404]) expect(error.message).not.toMatch(/the App\b|App ID/);
  });
});
