import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadAppConfig } from '../../src/config/app-config.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import { parseModelConfig } from '../../src/config/model-config.js';
import { GitError } from '../../src/errors/index.js';
import { buildTask } from '../../src/jobs/build-task.js';
import { type JobRunnerDependencies, runJob } from '../../src/jobs/run-job.js';
import type { LanguageModel } from '../../src/model/language-model.js';
import type { JobRequest } from '../../src/queue/job-request.js';
import { silentLogger } from '../../src/util/logger.js';
import { FakeCodeHost } from '../fakes/fake-code-host.js';
import { jobRequest } from '../fakes/job-requests.js';

/**
 * A failed workflow run whose log shows its infrastructure failed ends before
 * the checkout, the sandbox and the model: the report says what failed, with
 * the log's evidence, and the App re-runs the failed jobs once (on the run's
 * first attempt). The logs are the real ones of test/fixtures/infra-failures.
 */
const SHA = 'a'.repeat(40);
const RUN = 4242;
const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/infra-failures/logs/${name}.log`, import.meta.url), 'utf8');

/** A model that fails the test if the job calls it at all. */
class ForbiddenModel implements LanguageModel {
  readonly model = 'forbidden';
  calls = 0;
  async complete(): Promise<never> {
    this.calls++;
    throw new Error('the model was called for a failure that is not the code’s');
  }
}

function setup(log: string | null, options: { runAttempt?: number; ownPullRequest?: number | null } = {}) {
  const host = new FakeCodeHost('octo/app');
  // A command, so a failure of the code goes on past the task to the checkout.
  host.config = { command: 'node --test' };
  host.runs.set(RUN, [
    {
      id: 77,
      name: 'test',
      conclusion: 'failure',
      steps: [
        { number: 1, name: 'Set up job', conclusion: 'success' },
        { number: 3, name: 'Run npm ci', conclusion: 'failure' },
      ],
    },
  ]);
  if (log !== null) host.logs.set(77, log);
  const model = new ForbiddenModel();
  const checkouts: string[] = [];
  const opened: number[] = [];
  const dependencies: JobRunnerDependencies = {
    codeHostFor: async () => host,
    tokenFor: async () => 'ghs_jobtoken0123456789abcdefghijklmnop',
    workspaces: {
      checkout: async (request) => {
        checkouts.push(request.sha);
        throw new GitError('checkout', 'the test keeps the job from cloning');
      },
    },
    sandboxProviderFor: () => ({
      kind: 'local',
      open: async () => {
        opened.push(RUN);
        throw new Error('the test opens no sandbox');
      },
    }),
    modelFor: () => model,
    sandboxConfig: parseSandboxConfig({ kind: 'local' }),
    modelConfig: parseModelConfig({ apiKey: 'sk-test-secret-key-0123456789' }),
    appConfig: loadAppConfig({}),
    logger: silentLogger,
    environment: {},
  };
  const request: JobRequest = jobRequest({
    id: 'infra-job-1',
    headSha: SHA,
    trigger: {
      kind: 'workflow-run',
      runId: RUN,
      runAttempt: options.runAttempt ?? 1,
      workflowName: 'CI',
      workflowPath: '.github/workflows/ci.yml',
      branch: 'main',
      ownPullRequest: options.ownPullRequest ?? null,
    },
  });
  return {
    host,
    model,
    checkouts,
    opened,
    request,
    run: () => runJob(request, new AbortController().signal, dependencies),
  };
}

describe('a failed run that is not the code’s', () => {
  it('npm timing out: reported with its evidence, re-run once, no model call, no checkout', async () => {
    const { host, model, checkouts, opened, run } = setup(fixture('npm-etimedout'));
    const result = await run();
    expect(model.calls).toBe(0);
    expect(checkouts).toEqual([]);
    expect(opened).toEqual([]);
    expect(host.reruns).toEqual([RUN]);
    expect(result.problem).toMatchObject({ kind: 'refused' });
    expect(host.checkRuns).toHaveLength(1);
    const [checkRun] = host.checkRuns;
    expect(checkRun).toMatchObject({
      headSha: SHA,
      status: 'completed',
      conclusion: 'neutral',
      output: { title: 'Not the code: a network error fetching dependencies' },
    });
    const summary = checkRun?.output?.summary ?? '';
    expect(summary).toContain('connect ETIMEDOUT 10.200.0.2:80');
    expect(summary).toContain('step `Run npm ci`');
    expect(summary).toContain('I re-ran the failed jobs once');
    expect(summary).toContain('No model attempt was spent.');
  });

  it('a lost runner on the run’s second attempt: reported, not re-run again', async () => {
    const { host, model, run } = setup(fixture('runner-shutdown'), { runAttempt: 2 });
    await run();
    expect(model.calls).toBe(0);
    expect(host.reruns).toEqual([]);
    expect(host.checkRuns[0]?.output?.title).toBe('Not the code: the runner was lost');
    expect(host.checkRuns[0]?.output?.summary).toContain('This run was already re-run');
  });

  it('Docker Hub’s rate limit where the App may not re-run jobs: it asks people to', async () => {
    const { host, model, run } = setup(fixture('docker-pull-rate-limit'));
    host.withheld.set('rerunFailedJobs', 'actions=write');
    await run();
    expect(model.calls).toBe(0);
    expect(host.reruns).toEqual([]);
    expect(host.checkRuns[0]?.output?.title).toBe('Not the code: a registry rate limit');
    expect(host.checkRuns[0]?.output?.summary).toMatch(/may not re-run jobs.*Actions write permission/);
  });

  it('on the App’s own pull request, the comment says so there', async () => {
    const { host, model, run } = setup(fixture('npm-enospc'), { ownPullRequest: 31 });
    await run();
    expect(model.calls).toBe(0);
    const [comment] = host.commentsOn(31);
    expect(comment).toContain('the runner ran out of disk space');
    expect(comment).toContain('ENOSPC: no space left on device');
  });

  it('a runner that stopped answering, with no log: GitHub’s annotation says so', async () => {
    const { host, model, run } = setup(null);
    host.annotations.set(77, [
      'The hosted runner: GitHub Actions 12 lost communication with the server. Anything in your workflow that terminates the runner process, starves it for CPU/Memory, or blocks its network access can cause this error.',
    ]);
    await run();
    expect(model.calls).toBe(0);
    expect(host.reruns).toEqual([RUN]);
    expect(host.checkRuns[0]?.output?.title).toBe('Not the code: the runner was lost');
  });

  it('a missing log with nothing said about the runner fails the job as before', async () => {
    const { host, model, run } = setup(null);
    const result = await run();
    expect(model.calls).toBe(0);
    expect(host.reruns).toEqual([]);
    expect(result.problem).toMatchObject({ kind: 'failed', message: 'The fake has no log for job 77.' });
  });

  it('a failing assertion is the code’s: the task is built for the model, and nothing is re-run', async () => {
    const { host, request } = setup(fixture('timeout-in-passing-step'));
    const prepared = await buildTask(request, host, { command: 'node --test', setup: [] });
    expect(prepared.task.command).toBe('node --test');
    expect(prepared.task.description).toContain('7 !== 6');
    expect(host.reruns).toEqual([]);
  });
});
