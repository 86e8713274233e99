import { describe, expect, it } from 'vitest';
import { recoverStep } from '../../src/ci-logs/workflow-step.js';
import { JobRefusedError } from '../../src/errors/job-errors.js';
import { buildTask } from '../../src/jobs/build-task.js';
import { reportTargetOf } from '../../src/jobs/report-target.js';
import { resolveTarget } from '../../src/jobs/resolve-target.js';
import type { JobRequest, JobTrigger } from '../../src/queue/job-request.js';
import { FakeCodeHost } from '../fakes/fake-code-host.js';
import { jobRequest } from '../fakes/job-requests.js';

function request(trigger: JobTrigger, overrides: Partial<JobRequest> = {}): JobRequest {
  return jobRequest({ id: 'ABCDEF12-3456', deliveryId: 'delivery', dedupeKey: 'key', trigger, ...overrides });
}

/** As the runner does: the report target is the job's, worked out once from its request. */
const resolve = (job: JobRequest, host: FakeCodeHost) =>
  resolveTarget(job, host, reportTargetOf(job).issueNumber);

const mention = (extra: Partial<Extract<JobTrigger, { kind: 'mention' }>> = {}): JobTrigger => ({
  kind: 'mention',
  command: 'fix',
  issueNumber: 12,
  isPullRequest: false,
  commentId: 5,
  text: 'It crashes',
  scriptBlocks: [],
  ...extra,
});

const WORKFLOW = `
defaults:
  run:
    working-directory: app
jobs:
  test:
    name: Tests
    strategy:
      matrix:
        python: ['3.11']
    steps:
      - uses: actions/checkout@v4
      - name: Install
        run: pip install -e .
      - run: |
          pytest -q tests
          echo done
`;

describe('resolveTarget', () => {
  it('works from the default branch head for an issue, on a new branch', async () => {
    const host = new FakeCodeHost();
    host.branches.set('main', 'a'.repeat(40));
    expect(await resolve(request(mention()), host)).toEqual({
      headSha: 'a'.repeat(40),
      ref: 'main',
      workBranch: 'selfdebug/issue-12-abcdef12',
      ownBranch: false,
      baseBranch: 'main',
      existingPull: null,
      reportTo: 12,
    });
  });

  it('commits on top of its own pull request, and refuses forks', async () => {
    const host = new FakeCodeHost();
    const own = await host.createPullRequest({
      title: 't',
      body: 'b',
      head: 'selfdebug/issue-1-x',
      base: 'main',
      draft: true,
    });
    // GitHub reads a pull request's head from its branch.
    host.branches.set('selfdebug/issue-1-x', 'b'.repeat(40));
    const fork = await host.createPullRequest({
      title: 't',
      body: 'b',
      head: 'feature',
      base: 'main',
      draft: false,
    });
    const forkRecord = host.pulls.find((pull) => pull.number === fork.number);
    if (forkRecord !== undefined) forkRecord.headRepository = 'stranger/repo';
    expect(
      await resolve(request(mention({ issueNumber: own.number, isPullRequest: true })), host),
    ).toMatchObject({
      headSha: 'b'.repeat(40),
      workBranch: 'selfdebug/issue-1-x',
      ownBranch: true,
      existingPull: own.number,
      baseBranch: 'main',
    });
    await expect(
      resolve(request(mention({ issueNumber: fork.number, isPullRequest: true })), host),
    ).rejects.toThrow(JobRefusedError);
  });

  it('fixes a failed run on a new branch, or on its own branch', async () => {
    const host = new FakeCodeHost();
    const run = (branch: string, ownPullRequest: number | null): JobTrigger => ({
      kind: 'workflow-run',
      runId: 99,
      runAttempt: 1,
      workflowName: 'CI',
      workflowPath: '.github/workflows/ci.yml',
      branch,
      ownPullRequest,
    });
    expect(await resolve(request(run('develop', null), { headSha: 'c'.repeat(40) }), host)).toMatchObject({
      workBranch: 'selfdebug/run-99-abcdef12',
      baseBranch: 'develop',
      ownBranch: false,
      reportTo: null,
    });
    expect(
      await resolve(request(run('selfdebug/issue-3-x', 44), { headSha: 'c'.repeat(40) }), host),
    ).toMatchObject({
      workBranch: 'selfdebug/issue-3-x',
      ownBranch: true,
      existingPull: 44,
      reportTo: 44,
    });
  });
});

describe('buildTask', () => {
  it('prefers the inline command, then the configured one', async () => {
    const host = new FakeCodeHost();
    const inline = await buildTask(request(mention(), { options: { command: 'pytest -x' } }), host, {
      command: 'make',
      setup: ['pip install .'],
    });
    expect(inline.task).toEqual({
      description: 'It crashes',
      command: 'pytest -x',
      setupCommands: ['pip install .'],
    });
    const configured = await buildTask(request(mention()), host, { command: 'make', setup: [] });
    expect(configured.task.command).toBe('make');
  });

  it('runs the issue code blocks when there is no command, and says what to do when there are none', async () => {
    const host = new FakeCodeHost();
    const prepared = await buildTask(
      request(
        mention({
          scriptBlocks: [
            { language: 'python', code: 'print(x)\n' },
            { language: 'sh', code: 'exit 1\n' },
          ],
        }),
      ),
      host,
      { setup: [] },
    );
    expect(prepared.task.command).toBe(
      'python3 selfdebug-scripts/issue-12-1.py && sh selfdebug-scripts/issue-12-2.sh',
    );
    expect(prepared.scripts).toEqual([
      { path: 'selfdebug-scripts/issue-12-1.py', content: 'print(x)\n' },
      { path: 'selfdebug-scripts/issue-12-2.sh', content: 'exit 1\n' },
    ]);
    await expect(buildTask(request(mention()), host, { setup: [] })).rejects.toThrow(/which command to run/);
  });

  it('recovers the failing step of a workflow run and excerpts its log', async () => {
    const host = new FakeCodeHost();
    host.files.set('.github/workflows/ci.yml', WORKFLOW);
    host.runs.set(1, [
      {
        id: 7,
        name: 'Tests (3.11)',
        conclusion: 'failure',
        steps: [
          { number: 1, name: 'Run actions/checkout@v4', conclusion: 'success' },
          { number: 2, name: 'Run pytest -q tests', conclusion: 'failure' },
        ],
      },
    ]);
    host.logs.set(7, `${'noise\n'.repeat(50_000)}FAILED tests/test_io.py::test_read - AssertionError\n`);
    const prepared = await buildTask(
      request(
        {
          kind: 'workflow-run',
          runId: 1,
          runAttempt: 1,
          workflowName: 'CI',
          workflowPath: '.github/workflows/ci.yml',
          branch: 'main',
          ownPullRequest: null,
        },
        { headSha: 'd'.repeat(40) },
      ),
      host,
      { setup: [] },
    );
    // `set -e` as the runner's `bash -e {0}`: a failing pytest must not be masked by `echo done`.
    expect(prepared.task.command).toBe('set -e\ncd "app"\npytest -q tests\necho done\n');
    expect(prepared.task.description).toContain('job "Tests (3.11)" at step "Run pytest -q tests"');
    expect(prepared.task.description).toContain('FAILED tests/test_io.py::test_read - AssertionError');
    expect(prepared.task.description.length).toBeLessThan(13_000);
  });

  it('passes review comments with their file and line', async () => {
    const host = new FakeCodeHost();
    host.reviews.set(3, [{ path: 'app.py', line: 4, body: 'Use a constant here' }]);
    const prepared = await buildTask(
      request({
        kind: 'review',
        pullNumber: 9,
        reviewId: 3,
        commentId: null,
        branch: 'selfdebug/x',
        text: 'Almost',
        comments: [],
      }),
      host,
      { command: 'pytest', setup: [] },
    );
    expect(prepared.task.description).toContain('- app.py:4: Use a constant here');
    expect(prepared.task.description).toContain('Review:\nAlmost');
  });
});

describe('recoverStep', () => {
  it('finds a uses: step and says it cannot run as a script', () => {
    expect(recoverStep(WORKFLOW, 'Tests (3.11)', 'Run actions/checkout@v4')).toMatchObject({
      run: null,
      uses: 'actions/checkout@v4',
    });
    expect(recoverStep(WORKFLOW, 'Tests', 'Install')).toMatchObject({
      jobId: 'test',
      run: 'pip install -e .',
      workingDirectory: 'app',
    });
    expect(recoverStep(WORKFLOW, 'lint', 'Install')).toBeNull();
  });
});
