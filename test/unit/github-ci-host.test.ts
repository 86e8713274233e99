import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitHubCiHost } from '../../src/adapters/github/ci-host.js';
import {
  assertGitHubMocksDone,
  blockNetwork,
  documentedExample,
  documentedReply,
  githubApi,
  testOctokit,
} from '../helpers/github-api.js';

const repo = '/repos/octo-org/flaky-scripts';
const SHA = 'c0ffee0000000000000000000000000000000001';

function host() {
  return new GitHubCiHost(testOctokit(), { owner: 'octo-org', repo: 'flaky-scripts', appSlug: 'SelfDebug' });
}

/** A workflow run as GitHub documents it, with what the verdict reads changed. */
function run(id: number, name: string, status: string, conclusion: string | null) {
  const example = documentedExample('GET /repos/{owner}/{repo}/actions/runs/{run_id}', 200) as object;
  return {
    ...example,
    id,
    name,
    head_sha: SHA,
    status,
    conclusion,
    html_url: `https://github.com/octo-org/flaky-scripts/actions/runs/${id}`,
  };
}

function workflow(id: number, state: string) {
  const example = documentedExample(
    'GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}',
    200,
  ) as object;
  return { ...example, id, state };
}

/** A check suite as GitHub documents it, of the app `slug`, with `checkRuns` check runs. */
function suite(id: number, slug: string, status: string, conclusion: string | null, checkRuns: number) {
  const example = documentedExample('GET /repos/{owner}/{repo}/check-suites/{check_suite_id}', 200) as {
    app: object;
    repository: object;
  };
  return {
    ...example,
    id,
    head_sha: SHA,
    status,
    conclusion,
    latest_check_runs_count: checkRuns,
    app: { ...example.app, slug, name: `${slug} app` },
    repository: { ...example.repository, html_url: 'https://github.com/octo-org/flaky-scripts' },
  };
}

/** The commit's runs and workflows answered once: what every listing asks besides the suites. */
function runsAndWorkflows(runs: object[], workflows: object[]) {
  return githubApi()
    .get(`${repo}/actions/runs`)
    .query({ head_sha: SHA, per_page: 100 })
    .reply(documentedReply(200, { total_count: runs.length, workflow_runs: runs }))
    .get(`${repo}/actions/workflows`)
    .query({ per_page: 100 })
    .reply(documentedReply(200, { total_count: workflows.length, workflows }));
}

beforeEach(() => blockNetwork());
afterEach(() => assertGitHubMocksDone());

describe('GitHubCiHost', () => {
  it('lists the runs of one commit and counts the active workflows', async () => {
    const runs = [run(11, 'Tests', 'completed', 'failure'), run(12, 'Lint', 'in_progress', null)];
    runsAndWorkflows(runs, [workflow(1, 'active'), workflow(2, 'disabled_manually'), workflow(3, 'active')]);
    githubApi()
      .get(`${repo}/commits/${SHA}/check-suites`)
      .query({ per_page: 100 })
      .reply(documentedReply(200, { total_count: 0, check_suites: [] }));

    await expect(host().ciRuns(SHA)).resolves.toEqual({
      runs: [
        {
          id: 11,
          name: 'Tests',
          url: 'https://github.com/octo-org/flaky-scripts/actions/runs/11',
          status: 'completed',
          conclusion: 'failure',
        },
        {
          id: 12,
          name: 'Lint',
          url: 'https://github.com/octo-org/flaky-scripts/actions/runs/12',
          status: 'in_progress',
          conclusion: null,
        },
      ],
      suites: [],
      activeWorkflows: 2,
    });
  });

  it("lists other apps' check suites of the commit, but not GitHub Actions' nor the App's own", async () => {
    runsAndWorkflows([run(11, 'Tests', 'completed', 'success')], [workflow(1, 'active')]);
    githubApi()
      .get(`${repo}/commits/${SHA}/check-suites`)
      .query({ per_page: 100 })
      .reply(
        documentedReply(200, {
          total_count: 4,
          check_suites: [
            // The suite of the workflow run above: counted once, as the run.
            suite(21, 'github-actions', 'completed', 'success', 1),
            // The App's own, which holds its check runs (the slug in any case).
            suite(22, 'selfdebug', 'completed', 'success', 2),
            suite(23, 'circleci-checks', 'completed', 'failure', 3),
            suite(24, 'netlify', 'queued', null, 0),
          ],
        }),
      );

    const { suites } = await host().ciRuns(SHA);
    expect(suites).toEqual([
      {
        id: 23,
        name: 'circleci-checks app',
        url: `https://github.com/octo-org/flaky-scripts/commit/${SHA}/checks?check_suite_id=23`,
        status: 'completed',
        conclusion: 'failure',
        checkRuns: 3,
      },
      {
        id: 24,
        name: 'netlify app',
        url: `https://github.com/octo-org/flaky-scripts/commit/${SHA}/checks?check_suite_id=24`,
        status: 'queued',
        conclusion: null,
        checkRuns: 0,
      },
    ]);
  });

  it('lists no suite for the Action (no App slug): its token may not read checks', async () => {
    runsAndWorkflows([run(11, 'Tests', 'completed', 'success')], [workflow(1, 'active')]);
    const action = new GitHubCiHost(testOctokit(), { owner: 'octo-org', repo: 'flaky-scripts' });
    await expect(action.ciRuns(SHA)).resolves.toMatchObject({ suites: [], activeWorkflows: 1 });
  });

  it('edits a comment in place, and says so when it is gone', async () => {
    const comment = documentedExample(
      'GET /repos/{owner}/{repo}/issues/comments/{comment_id}',
      200,
    ) as object;
    githubApi()
      .get(`${repo}/issues/comments/5`)
      .reply(documentedReply(200, { ...comment, id: 5, body: 'status' }))
      .patch(`${repo}/issues/comments/5`, { body: 'status\nCI passed' })
      .reply(documentedReply(200, { ...comment, id: 5, body: 'status\nCI passed' }))
      .get(`${repo}/issues/comments/6`)
      .reply(404, { message: 'Not Found' });

    await expect(host().amendComment(5, (body) => `${body}\nCI passed`)).resolves.toBe(true);
    await expect(host().amendComment(6, (body) => `${body}\nCI passed`)).resolves.toBe(false);
  });

  it('edits a pull request body, and writes nothing when the edit changes nothing', async () => {
    const pull = {
      ...(documentedExample('GET /repos/{owner}/{repo}/pulls/{pull_number}', 200) as object),
      requested_teams: [],
    };
    githubApi()
      .get(`${repo}/pulls/3`)
      .reply(documentedReply(200, { ...pull, number: 3, body: 'the fix' }))
      .patch(`${repo}/pulls/3`, { body: 'the fix\n\nCI passed' })
      .reply(documentedReply(200, { ...pull, number: 3, body: 'the fix\n\nCI passed' }))
      .get(`${repo}/pulls/3`)
      .reply(documentedReply(200, { ...pull, number: 3, body: 'the fix\n\nCI passed' }));

    await host().amendPullRequestBody(3, (body) => `${body}\n\nCI passed`);
    await host().amendPullRequestBody(3, (body) => body);
  });
});
