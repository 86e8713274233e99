import { readFileSync } from 'node:fs';
import Docker from 'dockerode';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { JOB_LABEL } from '../../src/adapters/docker/labels.js';
import type { GitHubStandin, StandinRepository } from '../fakes/github-standin/standin.js';
import type { RuleModelServer } from '../fakes/rule-model-server.js';
import { describeWithDocker } from '../helpers/docker.js';
import { AppWorld } from './support/app-world.js';
import { issueCommentPayload, reviewPayload, workflowRunPayload } from './support/payloads.js';
import { PYCORRECTOR, STATS, slowRepository, UNREACHABLE } from './support/scenario-repos.js';

/**
 * The whole App end to end: the App and a `selfdebug worker` as real
 * processes (Probot's server, the SQLite queue between them), pointed at a
 * GitHub stand-in on 127.0.0.1 (REST checked against GitHub's OpenAPI
 * description, git over smart HTTP), the Docker sandbox, and a scripted
 * OpenAI-compatible model server. Webhooks are signed and POSTed as GitHub
 * does. Scenarios run in order and share the processes; the last one kills
 * the worker.
 */
const STOP = slowRepository('stop-me', 120);
const RESUME = slowRepository('resume-me', 4);
const PYCORRECTOR_LOG = readFileSync(
  new URL('../fixtures/gha-logs/pytest-2350842179/job.log', import.meta.url),
);

describeWithDocker('the App end to end', () => {
  let world: AppWorld;
  let standin: GitHubStandin;
  let model: RuleModelServer;
  const docker = new Docker();
  const jobIds = new Set<string>();

  beforeAll(async () => {
    world = await AppWorld.start([
      ...STATS.rules,
      ...PYCORRECTOR.rules,
      ...UNREACHABLE.rules,
      ...STOP.rules,
      ...RESUME.rules,
    ]);
    ({ standin, model } = world);
  }, 90_000);

  afterAll(async () => {
    await world?.close();
  }, 60_000);

  const eventually = (what: string, check: () => boolean | Promise<boolean>) => world.eventually(what, check);
  const mention = (repo: StandinRepository, login: string, text: string, issueText: string) =>
    world.mention(repo, login, text, issueText);
  const statusComment = (repo: StandinRepository, number: number) => world.statusComment(repo, number);

  function rememberJobs(repo: StandinRepository, number: number) {
    for (const comment of standin.comments(repo.fullName, number)) {
      for (const match of comment.body.matchAll(/selfdebug:status job=([\w-]+)/g)) jobIds.add(match[1]!);
    }
  }

  async function containersOf(ids: Iterable<string>) {
    const wanted = [...ids];
    if (wanted.length === 0) return [];
    const all = await docker.listContainers({ all: true, filters: { label: [JOB_LABEL] } });
    return all.filter((container) => wanted.includes(container.Labels[JOB_LABEL] ?? ''));
  }

  function expectNothingLeaked() {
    const posted = standin.listAllText().concat(world.app.child.output, world.worker.output);
    for (const token of standin.issuedTokens) {
      for (const text of posted) expect(text.includes(token), 'an installation token leaked').toBe(false);
    }
  }

  let stats: StandinRepository;
  let statsPull: { number: number; head: string };

  it('1. a mention on an issue with a broken script ends in a verified pull request', async () => {
    stats = await standin.createRepository('octo-org', 'stats', [STATS.files]);
    standin.setPermission(stats.fullName, 'alice', 'write');
    const mainBefore = await standin.branchSha(stats.fullName, 'main');
    const { issue } = await mention(
      stats,
      'alice',
      '@selfdebug fix',
      '`python stats.py` crashes with a NameError',
    );
    // A thin handler: the delivery is answered once the job is queued, before the job has run (GitHub
    // cuts a delivery off after 10 s; how fast the answer comes is bench/'s to measure, not a test's).
    expect(standin.pulls(stats.fullName)).toEqual([]);

    await eventually('the pull request', () => standin.pulls(stats.fullName).length === 1);
    await eventually('the check run to complete', () =>
      standin.checkRuns(stats.fullName).some((run) => run.status === 'completed'),
    );
    const [pull] = standin.pulls(stats.fullName);
    expect(pull).toMatchObject({ base: 'main', draft: true, state: 'open' });
    expect(pull!.head).toMatch(/^selfdebug\/issue-1-/);
    expect(pull!.body).toContain(`Fixes #${issue.number}`);
    expect(pull!.body).toContain('Use the `values` parameter in `mean`');
    statsPull = { number: pull!.number, head: pull!.head };

    expect(await standin.readFile(stats.fullName, pull!.head, 'stats.py')).toContain('len(values)');
    expect(await standin.branchSha(stats.fullName, 'main')).toBe(mainBefore);

    await eventually('the final status', () => /Fixed/i.test(statusComment(stats, issue.number)?.body ?? ''));
    const comments = standin.comments(stats.fullName, issue.number);
    expect(comments.filter((comment) => comment.body.includes('selfdebug:status'))).toHaveLength(1);
    expect(comments.some((comment) => comment.body.includes('selfdebug:attempt'))).toBe(true);
    expect(
      comments
        .filter((comment) => comment.user !== 'alice')
        .every((comment) => comment.user === 'selfdebug[bot]'),
    ).toBe(true);
    expect(standin.reactions(stats.fullName)).toContainEqual(
      expect.objectContaining({ content: 'eyes', user: 'selfdebug[bot]' }),
    );
    const checks = standin.checkRuns(stats.fullName).filter((run) => run.name === 'selfdebug');
    expect(checks.some((run) => run.conclusion === 'success')).toBe(true);

    rememberJobs(stats, issue.number);
    expect(await containersOf(jobIds)).toEqual([]);
    expectNothingLeaked();
    expect(standin.problems).toEqual([]);
  }, 180_000);

  it('2. a failed workflow run is reproduced from its log and workflow, and fixed on its branch', async () => {
    const repo = await standin.createRepository('octo-org', 'pycorrector', [PYCORRECTOR.files]);
    standin.setPermission(repo.fullName, 'bob', 'write');
    const headSha = (await standin.branchSha(repo.fullName, 'main'))!;
    const run = standin.createWorkflowRun(repo.fullName, {
      workflowName: 'Ubuntu',
      path: '.github/workflows/ubuntu.yml',
      headBranch: 'main',
      headSha,
      jobs: [
        {
          name: PYCORRECTOR.job.name,
          conclusion: 'failure',
          steps: PYCORRECTOR.job.steps.map((name, index) => ({
            name,
            number: index + 1,
            conclusion:
              name === PYCORRECTOR.job.failing
                ? 'failure'
                : index > PYCORRECTOR.job.steps.indexOf(PYCORRECTOR.job.failing) && name !== 'Complete job'
                  ? 'skipped'
                  : 'success',
          })),
          log: PYCORRECTOR_LOG,
        },
      ],
    });
    const delivery = await world.app.deliver(
      'workflow_run',
      workflowRunPayload(repo, standin.installationId, {
        id: run.id,
        name: 'Ubuntu',
        path: '.github/workflows/ubuntu.yml',
        headBranch: 'main',
        headSha,
        actor: 'bob',
      }),
    );
    expect(delivery.status).toBe(200);

    await eventually('the pull request', () => standin.pulls(repo.fullName).length === 1);
    const [pull] = standin.pulls(repo.fullName);
    expect(pull).toMatchObject({ base: 'main' });
    expect(pull!.head).toMatch(/^selfdebug\//);
    expect(await standin.readFile(repo.fullName, pull!.head, 'pycorrector/en_spell.py')).toContain(
      'def en_correct(text):',
    );
    await eventually('the check run on the run head to pass', () =>
      standin
        .checkRuns(repo.fullName)
        .some((check) => check.headSha === headSha && check.conclusion === 'success'),
    );
    // The model was shown the real log's failure and asked about the step's command.
    expect(model.calls.some((call) => call.schema === 'fix_proposal' && call.rule !== null)).toBe(true);
    expect(standin.problems).toEqual([]);
  }, 180_000);

  it('3. a review on the App’s pull request adds a commit to the same branch and replies', async () => {
    const before = (await standin.branchSha(stats.fullName, statsPull.head))!;
    standin.setPermission(stats.fullName, 'carol', 'maintain');
    const review = standin.createReview(stats.fullName, statsPull.number, {
      user: 'carol',
      state: 'changes_requested',
      body: 'Close. Please print the mean with two decimals.',
      comments: [{ path: 'stats.py', line: 5, body: 'two decimals here' }],
    });
    const delivery = await world.app.deliver(
      'pull_request_review',
      reviewPayload(
        stats,
        standin.installationId,
        {
          number: statsPull.number,
          headRef: statsPull.head,
          headSha: before,
          baseRef: 'main',
          author: 'selfdebug[bot]',
        },
        {
          id: review.id,
          state: 'changes_requested',
          body: 'Close. Please print the mean with two decimals.',
          user: 'carol',
        },
      ),
    );
    expect(delivery.status).toBe(200);

    await eventually(
      'a new commit on the branch',
      async () => (await standin.branchSha(stats.fullName, statsPull.head)) !== before,
    );
    expect(await standin.readFile(stats.fullName, statsPull.head, 'stats.py')).toContain(':.2f');
    expect(standin.pulls(stats.fullName)).toHaveLength(1);
    await eventually('the reply on the pull request', () =>
      /Fixed/i.test(statusComment(stats, statsPull.number)?.body ?? ''),
    );
    rememberJobs(stats, statsPull.number);
    expect(standin.problems).toEqual([]);
  }, 180_000);

  it('4. an unfixable failure ends with the reflection in a final comment and no pull request', async () => {
    const repo = await standin.createRepository('octo-org', 'rates', [UNREACHABLE.files]);
    standin.setPermission(repo.fullName, 'dave', 'admin');
    const { issue } = await mention(repo, 'dave', '@selfdebug fix', 'fetch_rates.py fails');
    await eventually('the final comment', () =>
      standin
        .comments(repo.fullName, issue.number)
        .some((comment) => comment.body.includes('Not fixable in code')),
    );
    expect(standin.pulls(repo.fullName)).toEqual([]);
    const status = statusComment(repo, issue.number)!.body;
    expect(status).toContain('no code change can provide');
    expect(await standin.branches(repo.fullName)).toEqual(['main']);
    rememberJobs(repo, issue.number);
    expect(standin.problems).toEqual([]);
  }, 180_000);

  it('5. a user without write access gets a polite refusal and nothing runs', async () => {
    const repo = await standin.createRepository('octo-org', 'guarded', [STATS.files]);
    standin.setPermission(repo.fullName, 'mallory', 'read');
    const callsBefore = model.calls.length;
    const { issue } = await mention(repo, 'mallory', '@selfdebug fix', 'please run this');
    await eventually('the refusal', () => standin.comments(repo.fullName, issue.number).length > 1);
    const [, refusal] = standin.comments(repo.fullName, issue.number);
    expect(refusal!.body).toMatch(/@mallory/);
    expect(refusal!.body).toMatch(/write/);
    // The App decides before it answers a delivery: what it queued for this one is already in the queue.
    expect(await world.history(repo)).toEqual([]);
    expect(statusComment(repo, issue.number)).toBeUndefined();
    expect(model.calls.length).toBe(callsBefore);
    expect(standin.checkRuns(repo.fullName)).toEqual([]);
    expect(standin.problems).toEqual([]);
  }, 60_000);

  it('6. `@selfdebug stop` during a run cancels the job and removes its container', async () => {
    const repo = await standin.createRepository('octo-org', 'stop-me', [STOP.files]);
    standin.setPermission(repo.fullName, 'erin', 'write');
    const { issue } = await mention(repo, 'erin', '@selfdebug fix', `${STOP.script} never finishes`);
    await eventually('the job to start', () => statusComment(repo, issue.number) !== undefined);
    rememberJobs(repo, issue.number);
    const ids = [...jobIds].filter((id) => statusComment(repo, issue.number)!.body.includes(id));
    await eventually('its container', async () => (await containersOf(ids)).length > 0);

    const comment = standin.createIssueComment(repo.fullName, issue.number, {
      body: '@selfdebug stop',
      user: 'erin',
    });
    await world.app.deliver(
      'issue_comment',
      issueCommentPayload(
        repo,
        standin.installationId,
        { number: issue.number, title: 'stop', body: 'stop', user: 'erin' },
        { id: comment.id, body: '@selfdebug stop', user: 'erin' },
      ),
    );
    await eventually('the container to go', async () => (await containersOf(ids)).length === 0);
    await eventually('the status to say cancelled', () =>
      /cancel/i.test(statusComment(repo, issue.number)!.body),
    );
    // The reason names the person, without pinging them (a zero-width joiner after the @).
    expect(statusComment(repo, issue.number)!.body).toMatch(/stopped by @\u200d?erin/);
    expect(standin.pulls(repo.fullName)).toEqual([]);
  }, 120_000);

  it('7. a worker SIGKILLed mid-job is replaced, and the job completes once', async () => {
    const repo = await standin.createRepository('octo-org', 'resume-me', [RESUME.files]);
    standin.setPermission(repo.fullName, 'frank', 'write');
    const { issue } = await mention(repo, 'frank', '@selfdebug fix', `${RESUME.script} fails`);
    await eventually('the job to start', () => statusComment(repo, issue.number) !== undefined);
    rememberJobs(repo, issue.number);
    const ids = [...jobIds].filter((id) => statusComment(repo, issue.number)!.body.includes(id));
    await eventually('its container', async () => (await containersOf(ids)).length > 0);

    await world.replaceWorker('worker-2');
    await eventually('the pull request', () => standin.pulls(repo.fullName).length === 1);
    await eventually('the final status', () => /Fixed/i.test(statusComment(repo, issue.number)?.body ?? ''));
    const comments = standin.comments(repo.fullName, issue.number);
    expect(comments.filter((comment) => comment.body.includes('selfdebug:status'))).toHaveLength(1);
    const attempts = comments
      .map((comment) => /selfdebug:attempt[^>]*/.exec(comment.body)?.[0])
      .filter(Boolean);
    expect(new Set(attempts).size).toBe(attempts.length);
    expect(standin.pulls(repo.fullName)).toHaveLength(1);
    await eventually('no container of its jobs', async () => (await containersOf(jobIds)).length === 0);
    expectNothingLeaked();
    expect(standin.problems).toEqual([]);
  }, 240_000);
});
