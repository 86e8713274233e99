import type { Context } from 'probot';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertGitHubMocksDone, blockNetwork } from '../helpers/github-api.js';
import { expectConfig, expectInstallationToken, expectPermission } from '../helpers/github-handler-mocks.js';
import { deliver, example, INSTALLATION_ID, NOW, testApp } from '../helpers/probot.js';
import { expectCheckRun } from './harness.js';

type RunPayload = Context<'workflow_run.completed'>['payload'];

const OWNER = 'octo-org';
const REPO = 'octo-repo';
const RUN_ID = 289782451;
const HEAD_SHA = '3484a3fb816e0859fd6e1cea078d76385ff50625';
const ENABLED = [
  'triggers:',
  '  workflow_runs:',
  '    enabled: true',
  '    workflows: [.github/workflows/test.yml]',
  '    branches: [master, "selfdebug/**"]',
  '',
].join('\n');

/**
 * Edited from the workflow_run.completed example #2 (octo-org/octo-repo, run
 * 289782451 on master, one pull request): GitHub's example succeeded, so the
 * conclusion is set to `failure`; and its run has an empty `name` where real
 * runs carry the workflow's, so it gets `test`, the name in its `workflow` object.
 */
function failedRun(): RunPayload {
  const payload = example<RunPayload>('workflow_run', 'completed', 2);
  payload.workflow_run.conclusion = 'failure';
  payload.workflow_run.name = payload.workflow?.name ?? 'test';
  return payload;
}

beforeEach(() => blockNetwork());
afterEach(() => assertGitHubMocksDone());

describe('workflow_run.completed', () => {
  it('ignores a failed run by default (no .github/selfdebug.yml anywhere)', async () => {
    const app = await testApp();
    expectInstallationToken();
    expectConfig(OWNER, REPO, null);
    await deliver(app, 'workflow_run', failedRun());
    expect(app.enqueued).toEqual([]);
  });

  it('enqueues a failed run of a watched workflow on a watched branch', async () => {
    const app = await testApp();
    expectInstallationToken();
    expectConfig(OWNER, REPO, ENABLED);
    // The run's actor must be allowed to start jobs, as for a mention (test/security/authorization.test.ts).
    expectPermission(OWNER, REPO, 'Codertocat', 'write');
    await deliver(app, 'workflow_run', failedRun(), { id: 'run-delivery' });
    expect(app.enqueued).toEqual([
      {
        id: 'job-1',
        deliveryId: 'run-delivery',
        dedupeKey: `run:octo-org/octo-repo:${RUN_ID}:1`,
        installationId: INSTALLATION_ID,
        repository: {
          // The numeric id scopes the prepared-environment cache.
          id: 300029405,
          owner: OWNER,
          name: REPO,
          cloneUrl: 'https://github.com/octo-org/octo-repo.git',
          defaultBranch: 'master',
          private: false,
        },
        requestedBy: 'Codertocat',
        headSha: HEAD_SHA,
        baseBranch: 'master',
        trigger: {
          kind: 'workflow-run',
          runId: RUN_ID,
          runAttempt: 1,
          workflowName: 'test',
          workflowPath: '.github/workflows/test.yml',
          branch: 'master',
          ownPullRequest: null,
        },
        options: {},
        createdAt: NOW.toISOString(),
      },
    ]);
  });

  it('matches a workflow by name and a branch by glob', async () => {
    const app = await testApp();
    expectInstallationToken();
    expectConfig(
      OWNER,
      REPO,
      'triggers:\n  workflow_runs:\n    enabled: true\n    workflows: [test]\n    branches: ["release/**"]\n',
    );
    expectPermission(OWNER, REPO, 'Codertocat', 'write');
    const payload = failedRun();
    payload.workflow_run.head_branch = 'release/2026/01';
    await deliver(app, 'workflow_run', payload);
    expect(app.enqueued).toHaveLength(1);
    expect(app.enqueued[0]?.trigger).toMatchObject({ branch: 'release/2026/01', workflowName: 'test' });
  });

  it.each([
    ['another branch', (payload: RunPayload) => (payload.workflow_run.head_branch = 'feature/login')],
    [
      'another workflow',
      (payload: RunPayload) => {
        payload.workflow_run.name = 'deploy';
        payload.workflow_run.path = '.github/workflows/deploy.yml';
      },
    ],
  ])('ignores a failed run on %s', async (_what, edit) => {
    const app = await testApp();
    expectInstallationToken();
    expectConfig(OWNER, REPO, ENABLED);
    const payload = failedRun();
    edit(payload);
    await deliver(app, 'workflow_run', payload);
    expect(app.enqueued).toEqual([]);
  });

  it.each(['success', 'cancelled', 'skipped'] as const)(
    'ignores a run that ended in %s without a single request',
    async (conclusion) => {
      const app = await testApp();
      const payload = failedRun();
      payload.workflow_run.conclusion = conclusion;
      await deliver(app, 'workflow_run', payload);
      expect(app.enqueued).toEqual([]);
    },
  );

  it('tells the repository in a check run on the head commit while .github/selfdebug.yml is invalid, and enqueues nothing', async () => {
    const app = await testApp();
    expectInstallationToken();
    expectConfig(OWNER, REPO, 'triggers:\n  workflow_runs:\n    enabled: yes please\n');
    const posted = expectCheckRun(OWNER, REPO);
    await deliver(app, 'workflow_run', failedRun());
    expect(app.enqueued).toEqual([]);
    expect(posted).toHaveLength(1);
    const [checkRun] = posted;
    expect(checkRun).toMatchObject({
      name: 'selfdebug',
      head_sha: HEAD_SHA,
      status: 'completed',
      conclusion: 'action_required',
      output: { title: 'Fix .github/selfdebug.yml: selfdebug ignores failed runs until it is valid' },
    });
    const { summary } = checkRun!.output as { summary: string };
    // The App's own config message: what is wrong, where, and how to fix it.
    expect(summary).toContain('**`.github/selfdebug.yml` is not valid**, so selfdebug cannot use it:');
    expect(summary).toContain('triggers.workflow_runs.enabled');
    expect(summary).toContain(
      'Fix the value at each path above in `.github/selfdebug.yml` on the default branch',
    );
    expect(summary).toContain('re-run the failed workflow to have it debugged.');
  });

  it('posts a skipped check run on the head commit of a run from a fork, and enqueues nothing', async () => {
    const payload = failedRun();
    // Edited: the run's head repository is a fork, as GitHub reports for pull requests from forks.
    const head = payload.workflow_run.head_repository;
    head.full_name = 'forker/octo-repo';
    if (head.owner) head.owner.login = 'forker';
    const app = await testApp();
    expectInstallationToken();
    expectConfig(OWNER, REPO, ENABLED);
    const posted = expectCheckRun(OWNER, REPO);
    await deliver(app, 'workflow_run', payload);
    expect(posted).toEqual([
      {
        name: 'selfdebug',
        head_sha: HEAD_SHA,
        status: 'completed',
        conclusion: 'skipped',
        completed_at: NOW.toISOString(),
        output: {
          title: 'Skipped: the run comes from a fork',
          summary:
            'selfdebug does not run code from forks near its credentials and cannot push to a fork. ' +
            'A maintainer can push the branch to this repository and re-run the workflow there.',
        },
      },
    ]);
    expect(app.enqueued).toEqual([]);
  });

  it("names the App's own pull request for a run on a selfdebug/ branch (from pull_requests[0])", async () => {
    const payload = failedRun();
    payload.workflow_run.head_branch = 'selfdebug/issue-1-abc';
    const app = await testApp();
    expectInstallationToken();
    expectConfig(OWNER, REPO, ENABLED);
    expectPermission(OWNER, REPO, 'Codertocat', 'write');
    await deliver(app, 'workflow_run', payload);
    expect(app.enqueued).toHaveLength(1);
    expect(app.enqueued[0]?.trigger).toEqual({
      kind: 'workflow-run',
      runId: RUN_ID,
      runAttempt: 1,
      workflowName: 'test',
      workflowPath: '.github/workflows/test.yml',
      branch: 'selfdebug/issue-1-abc',
      ownPullRequest: payload.workflow_run.pull_requests[0]?.number,
    });
    expect(app.enqueued[0]?.trigger).toMatchObject({ ownPullRequest: 2 });
  });

  it('enqueues a run attempt once, however often it is delivered, and a re-run again', async () => {
    const app = await testApp();
    expectInstallationToken();
    for (let round = 0; round < 3; round++) {
      expectConfig(OWNER, REPO, ENABLED);
      expectPermission(OWNER, REPO, 'Codertocat', 'write');
    }
    await deliver(app, 'workflow_run', failedRun(), { id: 'first' });
    await deliver(app, 'workflow_run', failedRun(), { id: 'first-redelivered' });
    const rerun = failedRun();
    rerun.workflow_run.run_attempt = 2;
    await deliver(app, 'workflow_run', rerun, { id: 'rerun' });
    expect(app.enqueued.map((job) => [job.deliveryId, job.dedupeKey])).toEqual([
      ['first', `run:octo-org/octo-repo:${RUN_ID}:1`],
      ['rerun', `run:octo-org/octo-repo:${RUN_ID}:2`],
    ]);
  });
});
