import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GitHubCodeHost } from '../../src/adapters/github/github-code-host.js';
import { mapGitHubError } from '../../src/adapters/github/map-github-error.js';
import { useTypedErrors } from '../../src/adapters/github/typed-errors-octokit.js';
import { GitHubApiError, GitHubNotFoundError } from '../../src/errors/github-errors.js';
import { SelfdebugError } from '../../src/errors/selfdebug-error.js';
import {
  assertGitHubMocksDone,
  blockNetwork,
  githubApi,
  TEST_TOKEN,
  testOctokit,
} from '../helpers/github-api.js';

const labels = '/repos/octo-org/flaky-scripts/issues/7/labels';

function host() {
  return new GitHubCodeHost(testOctokit(), { owner: 'octo-org', repo: 'flaky-scripts' });
}

/** Labelling #7 answered with `status`; returns what the adapter threw. */
async function failure(
  status: number,
  body: object,
  headers: Record<string, string> = {},
): Promise<GitHubApiError> {
  githubApi()
    .post(labels, { labels: ['bug'] })
    .reply(status, body, headers);
  const error = await host()
    .addLabels(7, ['bug'])
    .then(
      () => undefined,
      (caught: unknown) => caught,
    );
  expect(error).toBeInstanceOf(GitHubApiError);
  return error as GitHubApiError;
}

beforeEach(() => blockNetwork());
afterEach(() => assertGitHubMocksDone());

describe('GitHub error mapping', () => {
  it('explains a 403 as a missing permission to accept, not to retry', async () => {
    const error = await failure(
      403,
      { message: 'Resource not accessible by integration' },
      {
        'x-github-request-id': 'ABCD:1234',
      },
    );

    expect(error).toMatchObject({
      status: 403,
      retryable: false,
      code: 'github-api',
      requestId: 'ABCD:1234',
    });
    expect(error.message).toContain('labelling #7 of octo-org/flaky-scripts');
    expect(error.message).toContain('Resource not accessible by integration');
    expect(error.message).toContain('the App lacks permission');
    expect(error.message).toContain('Accept the new permissions in the installation settings');
    expect(error.message).toContain('ABCD:1234');
  });

  it('names the permission GitHub says the App needs', async () => {
    const one = await failure(
      403,
      { message: 'Resource not accessible by integration' },
      { 'x-accepted-github-permissions': 'issues=write' },
    );
    const either = await failure(
      403,
      { message: 'Resource not accessible by integration' },
      { 'x-accepted-github-permissions': 'issues=write; pull_requests=write' },
    );

    expect(one.message).toContain('the App lacks the "issues: write" permission.');
    expect(either.message).toContain(
      'the App lacks the "issues: write" or "pull_requests: write" permissions (any one of these).',
    );
    expect(either).toMatchObject({ status: 403, retryable: false });
  });

  it('treats a 403 with retry-after as the secondary rate limit, and retryable', async () => {
    const error = await failure(
      403,
      { message: 'You have exceeded a secondary rate limit' },
      { 'retry-after': '60' },
    );

    expect(error).toMatchObject({ status: 403, retryable: true, retryAfterSeconds: 60 });
    expect(error.message).toContain('rate-limited');
  });

  it('treats a 403 with no requests remaining as the primary rate limit, waiting until the reset', async () => {
    // The clock stands still, so the wait is exactly the two minutes to the reset however slow the machine.
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-03-01T12:00:00Z') });
    const reset = Math.floor(Date.now() / 1000) + 120;
    const error = await failure(
      403,
      { message: 'API rate limit exceeded' },
      {
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(reset),
      },
    ).finally(() => vi.useRealTimers());

    expect(error).toMatchObject({ status: 403, retryable: true });
    expect(error.retryAfterSeconds).toBeGreaterThan(100);
    expect(error.retryAfterSeconds).toBeLessThanOrEqual(120);
  });

  it('treats 429 as retryable', async () => {
    const error = await failure(429, { message: 'Too many requests' });

    expect(error).toMatchObject({ status: 429, retryable: true });
  });

  it('maps 404 to GitHubNotFoundError', async () => {
    const error = await failure(404, { message: 'Not Found' });

    expect(error).toBeInstanceOf(GitHubNotFoundError);
    expect(error).toMatchObject({ status: 404, retryable: false, code: 'github-not-found' });
    expect(error.message).toContain('the App is installed on the repository');
  });

  it('maps 422 to a rejection that is not retried', async () => {
    const error = await failure(422, { message: 'Validation Failed', errors: [{ code: 'invalid' }] });

    expect(error).toMatchObject({ status: 422, retryable: false });
    expect(error.message).toContain('GitHub rejected labelling #7');
  });

  it.each([500, 502, 503])('maps %i to a retryable error', async (status) => {
    const error = await failure(status, { message: 'Server Error' });

    expect(error).toMatchObject({ status, retryable: true });
    expect(error.message).toContain('usually temporary');
  });

  it('keeps tokens out of the message, even when the server echoes one', async () => {
    const error = await failure(401, { message: `Bad credentials for token ${TEST_TOKEN}` });

    expect(error).toMatchObject({ status: 401, retryable: false });
    expect(error.message).not.toContain(TEST_TOKEN);
    expect(error.message).toContain('[REDACTED]');
  });

  it('wraps a failure that never reached GitHub and passes our own errors through', () => {
    const network = mapGitHubError(new TypeError('fetch failed'), 'reading branch main');
    const ours = new SelfdebugError('config', 'already ours');

    expect(network).toBeInstanceOf(GitHubApiError);
    expect(network).toMatchObject({ status: undefined, retryable: false });
    expect(network.message).toContain('reading branch main: fetch failed');
    expect(mapGitHubError(ours, 'anything')).toBe(ours);
  });

  it('maps every request of a hooked Octokit once, named by its route, whoever sends it', async () => {
    const octokit = useTypedErrors(useTypedErrors(testOctokit()));
    githubApi().get('/repos/octo-org/app/branches/main').reply(404, { message: 'Branch not found' });
    githubApi().get('/repos/octo-org/app/tags').reply(500, { message: 'Server Error' });

    const branch = await octokit.rest.repos
      .getBranch({ owner: 'octo-org', repo: 'app', branch: 'main' })
      .catch((caught: unknown) => caught);
    const other = await octokit
      .request('GET /repos/{owner}/{repo}/tags', { owner: 'octo-org', repo: 'app' })
      .catch((caught: unknown) => caught);

    expect(branch).toBeInstanceOf(GitHubNotFoundError);
    expect((branch as Error).message).toContain(
      'GitHub found nothing while reading branch main of octo-org/app',
    );
    // A route the adapter does not name is named by its method and template.
    expect(other).toMatchObject({ status: 500, retryable: true });
    expect((other as Error).message).toContain('while requesting GET /repos/{owner}/{repo}/tags (HTTP 500');
  });
});
