import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitHubCodeHost } from '../../src/adapters/github/github-code-host.js';
import { GitHubApiError } from '../../src/errors/github-errors.js';
import { rerunOnce } from '../../src/triggers/infra-failure-run.js';
import {
  assertGitHubMocksDone,
  blockNetwork,
  documentedExample,
  documentedReply,
  githubApi,
  TEST_TOKEN,
  testOctokit,
} from '../helpers/github-api.js';

const repo = '/repos/octo-org/flaky-scripts';
const host = () => new GitHubCodeHost(testOctokit(), { owner: 'octo-org', repo: 'flaky-scripts' });

beforeEach(() => blockNetwork());
afterEach(() => assertGitHubMocksDone());

describe('re-running the failed jobs of a run', () => {
  it('asks GitHub to re-run the failed jobs of the run, with the installation token', async () => {
    const scope = githubApi()
      .post(`${repo}/actions/runs/7001/rerun-failed-jobs`)
      .matchHeader('authorization', `token ${TEST_TOKEN}`)
      .reply(documentedReply(201, {}));
    await expect(rerunOnce(host(), { runId: 7001, runAttempt: 1 })).resolves.toBe('started');
    expect(scope.isDone()).toBe(true);
  });

  it('never re-runs a run that is already a re-run: no request at all', async () => {
    await expect(rerunOnce(host(), { runId: 7001, runAttempt: 2 })).resolves.toBe('already-rerun');
  });

  it('says the App may not when GitHub refuses for a missing permission', async () => {
    githubApi()
      .post(`${repo}/actions/runs/7001/rerun-failed-jobs`)
      // GitHub documents only the 201 of this operation; 403 is its answer to any token without the permission.
      .reply(
        403,
        {
          message: 'Resource not accessible by integration',
          documentation_url: 'https://docs.github.com/rest',
        },
        { 'x-accepted-github-permissions': 'actions=write' },
      );
    await expect(rerunOnce(host(), { runId: 7001, runAttempt: 1 })).resolves.toBe('not-permitted');
  });

  it('says it failed when the run is gone, and maps the answer to a typed error', async () => {
    githubApi()
      .post(`${repo}/actions/runs/7002/rerun-failed-jobs`)
      .reply(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
    await expect(rerunOnce(host(), { runId: 7002, runAttempt: 1 })).resolves.toBe('failed');
    githubApi()
      .post(`${repo}/actions/runs/7002/rerun-failed-jobs`)
      .reply(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
    await expect(host().rerunFailedJobs(7002)).rejects.toBeInstanceOf(GitHubApiError);
  });
});

describe('a job’s failure annotations', () => {
  it('lists the failure-level messages of the job’s check run', async () => {
    const [example] = documentedExample(
      'GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations',
      200,
    ) as object[];
    const lost =
      'The hosted runner: GitHub Actions 12 lost communication with the server. Anything in your workflow that terminates the runner process, starves it for CPU/Memory, or blocks its network access can cause this error.';
    githubApi()
      .get(`${repo}/check-runs/77/annotations`)
      .reply(
        documentedReply(200, [
          { ...example, annotation_level: 'warning', message: 'Node.js 16 actions are deprecated.' },
          { ...example, annotation_level: 'failure', message: lost },
        ]),
      );
    await expect(host().jobFailureAnnotations(77)).resolves.toEqual([lost]);
  });
});
