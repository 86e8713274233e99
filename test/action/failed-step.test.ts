import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFailedStep } from '../../src/action/failed-step.js';
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
    return findFailedStep(standinOctokit(standin), {
      owner: 'octo-org',
      repo: 'app',
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
});
