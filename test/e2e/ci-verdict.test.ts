import { afterAll, beforeAll, expect, it } from 'vitest';
import type { GitHubStandin, StandinRepository } from '../fakes/github-standin/standin.js';
import { describeWithDocker } from '../helpers/docker.js';
import { AppWorld } from './support/app-world.js';
import { CI_PASSES, CI_ROUNDS, NO_CI } from './support/ci-repos.js';
import { sample, scrape } from './support/metrics.js';
import { checkSuitePayload, workflowRunPayload } from './support/payloads.js';

/**
 * The verdict of a repository's own CI on the App's fixes (docs/ci-verdict.md),
 * end to end: the App and a worker as real processes over the GitHub
 * stand-in, the Docker sandbox and a scripted model. The stand-in's workflow
 * runs and other apps' check suites are made by the test, as GitHub Actions
 * or a third-party CI would run them on the pushed commit, and their
 * `workflow_run.completed` and `check_suite.completed` webhooks delivered signed.
 */
describeWithDocker('the verdict of the repository’s CI on a fix', () => {
  let world: AppWorld;
  let standin: GitHubStandin;
  let workerMetrics: string;

  beforeAll(async () => {
    world = await AppWorld.start([...CI_PASSES.rules, ...NO_CI.rules, ...CI_ROUNDS.rules], {
      workerEnv: { SELFDEBUG_METRICS_PORT: '0' },
    });
    standin = world.standin;
    workerMetrics = await world.workerMetricsUrl();
  }, 90_000);

  afterAll(async () => {
    await world?.close();
  }, 60_000);

  const eventually = (what: string, check: () => boolean | Promise<boolean>) => world.eventually(what, check);
  const history = (repo: StandinRepository) => world.history(repo);

  /** A mention asking to fix `command`; resolves with the pull request once its job's record holds the pushed commit. */
  async function fixByMention(repo: StandinRepository, command: string) {
    standin.setPermission(repo.fullName, 'alice', 'write');
    await world.mention(repo, 'alice', `@selfdebug fix \`${command}\``, `\`${command}\` fails`);
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
    expect((await world.app.deliver('workflow_run', payload)).status, world.logs()).toBe(200);
  }

  const body = (repo: StandinRepository) => standin.pulls(repo.fullName)[0]?.body ?? '';
  /** As Prometheus adds them up: the App (told by webhooks) and the worker (told of pushed fixes) both count. */
  const verdicts = async (verdict: string) => {
    let total = 0;
    for (const url of [`${world.app.url}/metrics`, workerMetrics])
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
    await eventually('the verdict in the status comment', () =>
      standin
        .comments(repo.fullName, 1)
        .some(
          (comment) => comment.body.includes('selfdebug:status') && comment.body.includes('Your CI passed'),
        ),
    );
    // The pull request's body first (a repeat stops there), then the check run, then the comment.
    expect(standin.checkRuns(repo.fullName)).toContainEqual(
      expect.objectContaining({ name: 'selfdebug: your CI', headSha: sha, conclusion: 'success' }),
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
    expect((await world.app.deliver('check_suite', payload)).status, world.logs()).toBe(200);
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
