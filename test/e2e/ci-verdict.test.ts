import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SqliteJobStore } from '../../src/adapters/sqlite/sqlite-store.js';
import { GitHubStandin, type StandinRepository } from '../fakes/github-standin/standin.js';
import { type RuleModelServer, startRuleModelServer } from '../fakes/rule-model-server.js';
import { describeWithDocker, TEST_IMAGE } from '../helpers/docker.js';
import { until } from '../helpers/until.js';
import { CI_PASSES, CI_ROUNDS, NO_CI } from './support/ci-repos.js';
import { mentionInNewIssue } from './support/mention.js';
import { metricsUrlOf, sample, scrape } from './support/metrics.js';
import { checkSuitePayload, workflowRunPayload } from './support/payloads.js';
import { AppProcess, type Child, type ProcessSettings, startWorker } from './support/processes.js';

/**
 * The verdict of a repository's own CI on the App's fixes (docs/ci-verdict.md),
 * end to end: the App and a worker as real processes over the GitHub
 * stand-in, the Docker sandbox and a scripted model. The stand-in's workflow
 * runs and other apps' check suites are made by the test, as GitHub Actions
 * or a third-party CI would run them on the pushed commit, and their
 * `workflow_run.completed` and `check_suite.completed` webhooks delivered signed.
 */
describeWithDocker('the verdict of the repository’s CI on a fix', () => {
  let standin: GitHubStandin;
  let model: RuleModelServer;
  let app: AppProcess;
  let worker: Child;
  let settings: ProcessSettings;
  let queueDir: string;
  let workerMetrics: string;

  beforeAll(async () => {
    standin = await GitHubStandin.start();
    model = await startRuleModelServer([...CI_PASSES.rules, ...NO_CI.rules, ...CI_ROUNDS.rules]);
    queueDir = await mkdtemp(join(tmpdir(), 'selfdebug-e2e-ci-'));
    settings = {
      githubHost: standin.host,
      appId: standin.appId,
      privateKey: standin.privateKey,
      webhookSecret: randomBytes(20).toString('hex'),
      modelUrl: model.url,
      queuePath: join(queueDir, 'queue.sqlite'),
      image: TEST_IMAGE,
      env: { SELFDEBUG_CONCURRENCY: '2' },
    };
    app = await AppProcess.start(settings);
    worker = startWorker({ ...settings, env: { ...settings.env, SELFDEBUG_METRICS_PORT: '0' } });
    workerMetrics = await metricsUrlOf(worker);
  }, 90_000);

  afterAll(async () => {
    await worker?.stop();
    await app?.child.stop();
    await model?.close();
    await standin?.close();
    if (queueDir) await rm(queueDir, { recursive: true, force: true });
  }, 60_000);

  const logs = () => `${app.child.tail()}\n${worker.tail()}`;
  const eventually = (what: string, check: () => boolean | Promise<boolean>) =>
    until(what, check, { intervalMs: 100, context: logs });

  /** The finished jobs of `repo` as the queue keeps them: the pushed commit and its verdict. */
  async function history(repo: StandinRepository) {
    const store = new SqliteJobStore(settings.queuePath);
    try {
      return await store.history({ repository: repo.fullName });
    } finally {
      await store.close();
    }
  }

  /** A mention asking to fix `command`; resolves with the pull request once its job's record holds the pushed commit. */
  async function fixByMention(repo: StandinRepository, command: string) {
    standin.setPermission(repo.fullName, 'alice', 'write');
    const { payload } = mentionInNewIssue(standin, repo, {
      login: 'alice',
      body: `@selfdebug fix \`${command}\``,
      issueText: `\`${command}\` fails`,
    });
    expect((await app.deliver('issue_comment', payload)).status, logs()).toBe(200);
    await eventually('the pull request', () => standin.pulls(repo.fullName).length === 1);
    await eventually('the job that pushed it to be recorded', async () =>
      (await history(repo)).some((record) => record.fixSha),
    );
    const [pull] = standin.pulls(repo.fullName);
    const sha = (await standin.branchSha(repo.fullName, pull!.head))!;
    return { pull: pull!, sha };
  }

  /** GitHub Actions ran `workflow` on `sha` of the App's branch: the run in the stand-in and its webhook. */
  async function ciRan(
    repo: StandinRepository,
    at: { branch: string; sha: string; pull: number },
    outcome: 'success' | 'failure',
  ) {
    const failing = outcome === 'failure';
    const run = standin.createWorkflowRun(repo.fullName, {
      workflowName: 'Tests',
      path: '.github/workflows/ci.yml',
      headBranch: at.branch,
      headSha: at.sha,
      jobs: [
        {
          name: CI_ROUNDS.job.name,
          conclusion: outcome,
          steps: CI_ROUNDS.job.steps.map((name, index) => ({
            name,
            number: index + 1,
            conclusion: failing && name === CI_ROUNDS.job.failing ? 'failure' : 'success',
          })),
          log: failing ? CI_ROUNDS.log : 'ok\n',
        },
      ],
    });
    const payload = workflowRunPayload(repo, standin.installationId, {
      id: run.id,
      name: 'Tests',
      path: '.github/workflows/ci.yml',
      headBranch: at.branch,
      headSha: at.sha,
      actor: 'selfdebug[bot]',
      conclusion: outcome,
      pullRequests: [at.pull],
    });
    expect((await app.deliver('workflow_run', payload)).status, logs()).toBe(200);
  }

  const body = (repo: StandinRepository) => standin.pulls(repo.fullName)[0]?.body ?? '';
  /** As Prometheus adds them up: the App (told by webhooks) and the worker (told of pushed fixes) both count. */
  const verdicts = async (verdict: string) => {
    let total = 0;
    for (const url of [`${app.url}/metrics`, workerMetrics])
      total += sample((await scrape(url)).text, 'selfdebug_fix_ci_verdicts_total', { verdict });
    return total;
  };

  it('1. a fix whose CI passes says "your CI passed" on the pull request, as a check run, and in /metrics', async () => {
    const repo = await standin.createRepository('octo-org', 'ci-passes', [CI_PASSES.files]);
    const { pull, sha } = await fixByMention(repo, 'python tally.py');
    expect(body(repo)).not.toContain('Your CI');

    await ciRan(repo, { branch: pull.head, sha, pull: pull.number }, 'success');
    await eventually('the verdict in the pull request', () => body(repo).includes('Your CI passed'));
    expect(body(repo)).toContain(`**Your CI passed** on \`${sha.slice(0, 7)}\``);
    expect(standin.checkRuns(repo.fullName)).toContainEqual(
      expect.objectContaining({ name: 'selfdebug: your CI', headSha: sha, conclusion: 'success' }),
    );
    // The status comment is written last.
    await eventually('the verdict in the status comment', () =>
      standin
        .comments(repo.fullName, 1)
        .some(
          (comment) => comment.body.includes('selfdebug:status') && comment.body.includes('Your CI passed'),
        ),
    );
    expect((await history(repo))[0]!.ciVerdict).toMatchObject({ verdict: 'passed', sha });
    expect(await verdicts('passed')).toBe(1);
    expect(standin.problems).toEqual([]);
  }, 180_000);

  it('2. a fix in a repository without workflows says "no CI"', async () => {
    const repo = await standin.createRepository('octo-org', 'no-ci', [NO_CI.files]);
    const { sha } = await fixByMention(repo, 'python greet.py');
    await eventually('the verdict in the pull request', () => body(repo).includes('No CI'));
    expect(body(repo)).toContain(`**No CI** on \`${sha.slice(0, 7)}\``);
    expect((await history(repo)).find((record) => record.fixSha === sha)?.ciVerdict).toMatchObject({
      verdict: 'unknown',
      reason: 'no-ci',
    });
    expect(await verdicts('unknown')).toBe(1);
    expect(standin.problems).toEqual([]);
  }, 180_000);

  it('3. a fix whose CI fails starts round 2, and the final pull request shows both verdicts', async () => {
    const repo = await standin.createRepository('octo-org', 'ci-rounds', [CI_ROUNDS.files]);
    const { pull, sha: first } = await fixByMention(repo, 'python calc.py');

    await ciRan(repo, { branch: pull.head, sha: first, pull: pull.number }, 'failure');
    await eventually('the failed verdict', () => body(repo).includes('Your CI failed'));
    await eventually(
      'round 2 on the branch',
      async () => (await standin.branchSha(repo.fullName, pull.head)) !== first,
    );
    const second = (await standin.branchSha(repo.fullName, pull.head))!;
    expect(await standin.readFile(repo.fullName, pull.head, 'calc.py')).toContain(
      'return total(values) / len(values)\n',
    );
    await eventually('round 2 to be recorded', async () =>
      (await history(repo)).some((record) => record.fixSha === second),
    );

    await ciRan(repo, { branch: pull.head, sha: second, pull: pull.number }, 'success');
    await eventually('the second verdict', () => body(repo).includes('Your CI passed'));
    expect(body(repo)).toMatch(
      new RegExp(
        `- Round 1: ❌ \\*\\*Your CI failed\\*\\* on \`${first.slice(0, 7)}\`: \\[Tests\\]\\([^)]+\\)[\\s\\S]*` +
          `- Round 2: ✅ \\*\\*Your CI passed\\*\\* on \`${second.slice(0, 7)}\``,
      ),
    );
    expect(standin.pulls(repo.fullName)).toHaveLength(1);
    expect(await verdicts('failed')).toBe(1);
    expect(await verdicts('passed')).toBe(2);
    expect(standin.problems).toEqual([]);
  }, 300_000);

  it('4. a fix whose third-party CI (a check suite, no workflow) fails says "your CI failed", naming it', async () => {
    const repo = await standin.createRepository('octo-org', 'suite-ci', [NO_CI.files]);
    const circle = { slug: 'circleci-checks', name: 'CircleCI Checks' };
    // GitHub opens an empty suite of the app on every push: the verdict waits for it instead of "no CI".
    standin.installCheckApp(repo.fullName, circle);
    const { pull, sha } = await fixByMention(repo, 'python greet.py');

    const suite = { id: 9001, app: circle, headBranch: pull.head, headSha: sha };
    standin.setCheckSuite(repo.fullName, {
      ...suite,
      status: 'completed',
      conclusion: 'failure',
      checkRuns: 2,
    });
    const payload = checkSuitePayload(repo, standin.installationId, { ...suite, conclusion: 'failure' });
    expect((await app.deliver('check_suite', payload)).status, logs()).toBe(200);
    await eventually('the verdict in the pull request', () => body(repo).includes('Your CI failed'));
    expect(body(repo)).toContain(`**Your CI failed** on \`${sha.slice(0, 7)}\`: [CircleCI Checks](`);
    expect(body(repo)).toContain('checks?check_suite_id=9001');
    expect((await history(repo)).find((record) => record.fixSha === sha)?.ciVerdict).toMatchObject({
      verdict: 'failed',
      runs: 0,
      suites: 1,
    });
    expect(await verdicts('failed')).toBe(2);
    expect(standin.problems).toEqual([]);
  }, 180_000);
});
