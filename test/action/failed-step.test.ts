import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFailedStep } from '../../src/action/failed-step.js';
import { GitHubCodeHost } from '../../src/adapters/github/index.js';
import { standinOctokit } from '../fakes/github-standin/clients.js';
import { GitHubStandin } from '../fakes/github-standin/standin.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { writeFiles } from './harness.js';

const WORKFLOW = `name: CI
on: push
jobs:
  build:
    runs-on: ubuntu-latest
    defaults:
      run:
        working-directory: packages/core
    steps:
      - uses: actions/checkout@v4
      - name: Lint
        uses: ./.github/actions/lint
      - name: Test
        run: npm test -- --runInBand
`;

const STEPS = {
  checkout: { name: 'Run actions/checkout@v4', number: 2, conclusion: 'success' as const },
  lint: (conclusion: 'success' | 'failure') => ({ name: 'Lint', number: 3, conclusion }),
  test: (conclusion: 'success' | 'failure' | 'skipped') => ({ name: 'Test', number: 4, conclusion }),
};

/** The Action's CodeHost, over the stand-in's installation. */
function standinHost(standin: GitHubStandin): GitHubCodeHost {
  return new GitHubCodeHost(standinOctokit(standin), { owner: 'octo-org', repo: 'app' });
}

describe('findFailedStep', () => {
  const tempDir = useTempDirs();
  let standin: GitHubStandin;
  let sha: string;

  beforeAll(async () => {
    standin = await GitHubStandin.start();
    const repository = await standin.createRepository('octo-org', 'app', [
      { '.github/workflows/ci.yml': WORKFLOW },
    ]);
    sha = repository.commits[0]!;
  });
  afterAll(() => standin.close());

  async function find(
    steps: { name: string; number: number; conclusion: 'success' | 'failure' | 'skipped' }[],
  ) {
    const run = standin.createWorkflowRun('octo-org/app', {
      workflowName: 'CI',
      path: '.github/workflows/ci.yml',
      headBranch: 'main',
      headSha: sha,
      jobs: [
        {
          name: 'build',
          conclusion: 'failure',
          steps: [{ name: 'Set up job', number: 1, conclusion: 'success' }, ...steps],
          log: '',
        },
      ],
    });
    const workspace = await tempDir('selfdebug-failed-step-');
    await writeFiles(workspace, { '.github/workflows/ci.yml': WORKFLOW });
    return findFailedStep(standinHost(standin), {
      runId: run.id,
      jobKey: 'build',
      workspace,
    });
  }

  it("runs the failed step's script in its working directory", async () => {
    const result = await find([STEPS.checkout, STEPS.lint('success'), STEPS.test('failure')]);
    expect(result).toEqual({
      found: {
        command: 'cd packages/core && npm test -- --runInBand',
        jobName: 'build',
        stepName: 'Test',
        workflowPath: '.github/workflows/ci.yml',
        // Derived as the App derives it: the steps before the failed one hold no script to replay.
        derived: expect.objectContaining({ image: null, setup: [] }),
      },
    });
  });

  it('asks for the command input when the failed step runs an action rather than a script', async () => {
    const result = await find([STEPS.checkout, STEPS.lint('failure'), STEPS.test('skipped')]);
    expect(result).toEqual({
      problem:
        'the failed step "Lint" of job "build" runs `./.github/actions/lint`, not a script; set the `command` input to the command that fails.',
    });
  });

  it('asks for the command input when no step has failed', async () => {
    const result = await find([STEPS.checkout, STEPS.lint('success'), STEPS.test('success')]);
    expect(result).toEqual({
      problem: expect.stringMatching(/^no step of workflow run \d+ has failed yet; set the `command` input/),
    });
  });

  describe('in a matrix, whose jobs share GITHUB_JOB', () => {
    const SET_UP = { name: 'Set up job', number: 1, conclusion: 'success' as const };
    /** `build (18)` failed its tests on runner 7; `build (20)` passed on runner 8. */
    async function matrixRun(runnerName: string | undefined, secondFails = false) {
      const run = standin.createWorkflowRun('octo-org/app', {
        workflowName: 'CI',
        path: '.github/workflows/ci.yml',
        headBranch: 'main',
        headSha: sha,
        jobs: [
          {
            name: 'build (18)',
            conclusion: 'failure',
            steps: [SET_UP, STEPS.checkout, STEPS.lint('success'), STEPS.test('failure')],
            log: '',
            runnerName: 'GitHub Actions 7',
          },
          {
            name: 'build (20)',
            conclusion: secondFails ? 'failure' : 'success',
            steps: [
              SET_UP,
              STEPS.checkout,
              STEPS.lint(secondFails ? 'failure' : 'success'),
              STEPS.test('skipped'),
            ],
            log: '',
            runnerName: 'GitHub Actions 8',
          },
        ],
      });
      const workspace = await tempDir('selfdebug-failed-step-');
      await writeFiles(workspace, { '.github/workflows/ci.yml': WORKFLOW });
      return findFailedStep(standinHost(standin), {
        runId: run.id,
        jobKey: 'build',
        ...(runnerName === undefined ? {} : { runnerName }),
        workspace,
      });
    }

    it('finds the failed job by its runner', async () => {
      const result = await matrixRun('GitHub Actions 7');
      expect(result).toMatchObject({ found: { jobName: 'build (18)', stepName: 'Test' } });
    });

    it('debugs nothing in the job that passed, though its sibling failed', async () => {
      const result = await matrixRun('GitHub Actions 8');
      expect(result).toEqual({
        problem: expect.stringMatching(
          /^no step of this job \("build \(20\)", run \d+\) has failed yet; set the `command` input/,
        ),
      });
    });

    it('takes the second failed job when its runner says so', async () => {
      const result = await matrixRun('GitHub Actions 8', true);
      expect(result).toMatchObject({
        problem: expect.stringMatching(/^the failed step "Lint" of job "build \(20\)" runs/),
      });
    });

    it('asks for the command when two jobs failed and no runner name tells them apart', async () => {
      const result = await matrixRun(undefined, true);
      expect(result).toEqual({
        problem:
          'jobs "build (18)", "build (20)" failed and RUNNER_NAME does not tell which is this one; set the `command` input to the command that fails.',
      });
    });
  });
});
