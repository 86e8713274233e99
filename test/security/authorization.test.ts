/**
 * Who can start a job: every sender permission × sender type × trigger ×
 * `allowed_users` delivered to the real App (test/helpers/probot.ts: real
 * handlers, the real GitHub adapter, the real config loader, a recording
 * queue), with GitHub mocked strictly. "A job started" means the queue ran
 * it (`app.enqueued`), never a log line.
 *
 * Each cell declares what GitHub would answer (the installation token, the
 * configuration, the sender's permission, the reaction, a refusal comment,
 * a check run) as optional mocks, so the table asserts what the App did
 * rather than which calls it made; a request no mock matches still fails.
 * The intended rule is `intended()` below; docs/app.md shows it as a table.
 * Allowed cells are plain tests; refused ones are grouped, one attack per
 * class, into the attack table. Beside the matrix: a writer's mention on a
 * fork's pull request, which only the job can tell apart (it refuses it).
 */
import type { Context } from 'probot';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitHubCodeHost } from '../../src/adapters/github/index.js';
import { JobRefusedError } from '../../src/errors/job-errors.js';
import { reportTargetOf } from '../../src/jobs/report-target.js';
import { resolveTarget } from '../../src/jobs/resolve-target.js';
import type { JobRequest } from '../../src/queue/job-request.js';
import {
  assertGitHubMocksDone,
  blockNetwork,
  documentedExample,
  documentedReply,
  githubApi,
  testOctokit,
} from '../helpers/github-api.js';
import {
  expectComment,
  expectConfig,
  expectInstallationToken,
  expectPermission,
  expectReaction,
} from '../helpers/github-handler-mocks.js';
import { deliver, example, NOW, testApp } from '../helpers/probot.js';
import { attackSuite } from './attack-table.js';

type IssuePayload = Context<'issues.opened'>['payload'];
type CommentPayload = Context<'issue_comment.created'>['payload'];
type ReviewPayload = Context<'pull_request_review.submitted'>['payload'];
type RunPayload = Context<'workflow_run.completed'>['payload'];

const HANDLE = 'selfdebug';
const OWN_BRANCH = 'selfdebug/issue-1-abc';

// ── The axes ───────────────────────────────────────────────────────────────────────────────────

const PERMISSIONS = ['none', 'read', 'triage', 'write', 'maintain', 'admin'] as const;
type Permission = (typeof PERMISSIONS)[number];
/** [legacy `permission`, `role_name`] as GitHub answers them; `none` is a 404. */
const ANSWERS: Record<Permission, [string, string]> = {
  none: ['none', 'none'],
  read: ['read', 'read'],
  triage: ['read', 'triage'],
  write: ['write', 'write'],
  maintain: ['write', 'maintain'],
  admin: ['admin', 'admin'],
};
const WRITERS: readonly Permission[] = ['write', 'maintain', 'admin'];

interface Account {
  kind: 'user' | 'bot' | 'app' | 'suffixed';
  label: string;
  login: string;
  type: 'User' | 'Bot';
  /** How `allowed_users` would name it: a bot's login cannot be listed, so its name without `[bot]`. */
  listedAs: string;
}

/**
 * Each automated column trips one check alone: a `Bot` type with a plain
 * login, a `[bot]` login that claims to be a `User`, and the App's own login.
 */
const ACCOUNTS: readonly Account[] = [
  { kind: 'user', label: 'User', login: 'Codertocat', type: 'User', listedAs: '"@codertocat"' },
  { kind: 'bot', label: 'Bot', login: 'ci-helper', type: 'Bot', listedAs: 'ci-helper' },
  { kind: 'app', label: 'the App', login: `${HANDLE}[bot]`, type: 'Bot', listedAs: HANDLE },
  { kind: 'suffixed', label: '[bot] login', login: 'renovate[bot]', type: 'User', listedAs: 'renovate' },
];

const ALLOWED_USERS = ['unset', 'lists sender', 'lists others'] as const;
type AllowedUsers = (typeof ALLOWED_USERS)[number];

interface Seen {
  comments: string[];
  checkRuns: { conclusion?: string }[];
}

interface Trigger {
  key: 'issue' | 'issue-comment' | 'pr-comment' | 'review' | 'run' | 'own-run' | 'fork-run';
  label: string;
  event: string;
  owner: string;
  repo: string;
  group: 'mention' | 'review' | 'run';
  payload(account: Account): object;
  /** Optional mocks of what this trigger's handler may post besides reading config and permission. */
  mock(): Seen;
}

/** `base` (a user object of the example) as `account`. */
function asAccount<T extends object>(account: Account, base: T | null | undefined): T {
  return { ...base, login: account.login, type: account.type } as T;
}

/** 👀 on `target` and a refusal comment on `number`, both optional. */
function reactOrRefuse(
  owner: string,
  repo: string,
  target: { commentId: number } | { issueNumber: number },
  number: number,
): Seen {
  expectReaction(owner, repo, target, 'eyes', { optional: true });
  return { comments: expectComment(owner, repo, number, { optional: true }), checkRuns: [] };
}

const HELLO = ['Codertocat', 'Hello-World'] as const;
const OCTO = ['octo-org', 'octo-repo'] as const;

function issueMention(account: Account): IssuePayload {
  const payload = example<IssuePayload>('issues', 'opened');
  payload.issue.body = '@selfdebug fix\nThe script crashes.';
  payload.sender = asAccount(account, payload.sender);
  payload.issue.user = asAccount(account, payload.issue.user);
  return payload;
}

function commentMention(account: Account, onPullRequest: boolean): CommentPayload {
  const payload = example<CommentPayload>('issue_comment', 'created');
  payload.comment.body = '@selfdebug fix';
  payload.sender = asAccount(account, payload.sender);
  payload.comment.user = asAccount(account, payload.comment.user);
  if (onPullRequest) {
    // Edited: the conversation is a pull request (in this repository), as GitHub marks it.
    const url = 'https://api.github.com/repos/Codertocat/Hello-World/pulls/1';
    payload.issue.pull_request = {
      url,
      html_url: 'https://github.com/Codertocat/Hello-World/pull/1',
      diff_url: 'https://github.com/Codertocat/Hello-World/pull/1.diff',
      patch_url: 'https://github.com/Codertocat/Hello-World/pull/1.patch',
      merged_at: null,
    };
  }
  return payload;
}

/** Example #1 (Codertocat/Hello-World#2), on one of the App's branches, requesting changes. */
function reviewOnOwnPull(account: Account): ReviewPayload {
  const payload = example<ReviewPayload>('pull_request_review', 'submitted', 1);
  payload.pull_request.head.ref = OWN_BRANCH;
  payload.pull_request.head.label = `Codertocat:${OWN_BRANCH}`;
  payload.review.state = 'changes_requested';
  payload.review.body = 'Keep the `--legacy` flag working.';
  payload.sender = asAccount(account, payload.sender);
  payload.review.user = asAccount(account, payload.review.user);
  return payload;
}

/**
 * Example #2 (octo-org/octo-repo, run 289782451), failed, on `branch`; the
 * account is the sender, the actor and the triggering actor alike.
 */
function failedRun(account: Account, branch: string): RunPayload {
  const payload = example<RunPayload>('workflow_run', 'completed', 2);
  const run = payload.workflow_run;
  run.conclusion = 'failure';
  run.name = payload.workflow?.name ?? 'test';
  run.head_branch = branch;
  for (const pull of run.pull_requests) if (pull) pull.head.ref = branch;
  payload.sender = asAccount(account, payload.sender);
  run.actor = asAccount(account, run.actor);
  run.triggering_actor = asAccount(account, run.triggering_actor);
  return payload;
}

/** A pull request from a fork: the run's head repository is the fork, and GitHub lists no pull request. */
function forkRun(account: Account): RunPayload {
  const payload = failedRun(account, 'patch-1');
  const run = payload.workflow_run;
  run.event = 'pull_request';
  run.head_repository.full_name = 'forker/octo-repo';
  if (run.head_repository.owner) run.head_repository.owner.login = 'forker';
  run.pull_requests = [];
  return payload;
}

/** The skipped check run a fork's run may get, recorded. */
function mockCheckRun(): Seen {
  const seen: Seen = { comments: [], checkRuns: [] };
  githubApi()
    .post(`/repos/${OCTO[0]}/${OCTO[1]}/check-runs`, (body: { conclusion?: string }) => {
      seen.checkRuns.push(body);
      return true;
    })
    .optionally()
    .reply(documentedReply(201, documentedExample('POST /repos/{owner}/{repo}/check-runs', 201) as object));
  return seen;
}

const TRIGGERS: readonly Trigger[] = [
  {
    key: 'issue',
    label: 'mention in a new issue',
    event: 'issues',
    owner: HELLO[0],
    repo: HELLO[1],
    group: 'mention',
    payload: issueMention,
    mock: () => reactOrRefuse(...HELLO, { issueNumber: 1 }, 1),
  },
  {
    key: 'issue-comment',
    label: 'mention in an issue comment',
    event: 'issue_comment',
    owner: HELLO[0],
    repo: HELLO[1],
    group: 'mention',
    payload: (account) => commentMention(account, false),
    mock: () => reactOrRefuse(...HELLO, { commentId: 492700400 }, 1),
  },
  {
    key: 'pr-comment',
    label: 'mention in a pull request comment',
    event: 'issue_comment',
    owner: HELLO[0],
    repo: HELLO[1],
    group: 'mention',
    payload: (account) => commentMention(account, true),
    mock: () => reactOrRefuse(...HELLO, { commentId: 492700400 }, 1),
  },
  {
    key: 'review',
    label: "review on the App's pull request",
    event: 'pull_request_review',
    owner: HELLO[0],
    repo: HELLO[1],
    group: 'review',
    payload: reviewOnOwnPull,
    mock: () => reactOrRefuse(...HELLO, { issueNumber: 2 }, 2),
  },
  {
    key: 'run',
    label: 'failed run on a branch of the repository',
    event: 'workflow_run',
    owner: OCTO[0],
    repo: OCTO[1],
    group: 'run',
    payload: (account) => failedRun(account, 'master'),
    mock: () => ({ comments: [], checkRuns: [] }),
  },
  {
    key: 'own-run',
    label: 'failed run on a branch the App pushed',
    event: 'workflow_run',
    owner: OCTO[0],
    repo: OCTO[1],
    group: 'run',
    payload: (account) => failedRun(account, OWN_BRANCH),
    mock: () => ({ comments: [], checkRuns: [] }),
  },
  {
    key: 'fork-run',
    label: "failed run of a fork's pull request",
    event: 'workflow_run',
    owner: OCTO[0],
    repo: OCTO[1],
    group: 'run',
    payload: forkRun,
    mock: mockCheckRun,
  },
];

// ── The intended rule ──────────────────────────────────────────────────────────────────────────

interface Cell {
  permission: Permission;
  account: Account;
  trigger: Trigger;
  allowedUsers: AllowedUsers;
}

const name = (cell: Cell) =>
  `${cell.permission} ${cell.account.label} (${cell.account.login}), ${cell.trigger.label}, allowed_users ${cell.allowedUsers}`;

/**
 * Humans with write, maintain or admin permission, when `allowed_users`
 * is unset or lists them; never a bot; the App itself only for a failed run
 * on its own branch (its fix failing CI: the round cap `max_rounds` ends
 * that loop); never a fork's run.
 */
function intended(cell: Cell): boolean {
  if (cell.trigger.key === 'fork-run') return false;
  if (cell.trigger.key === 'own-run' && cell.account.kind === 'app') return true;
  return (
    cell.account.kind === 'user' && WRITERS.includes(cell.permission) && cell.allowedUsers !== 'lists others'
  );
}

/** Why a cell is refused: one attack in the table per class. */
function deniedClass(cell: Cell): string {
  const what = {
    mention: 'mentions the App',
    review: "reviews the App's pull request",
    run: 'has a failed workflow run',
  }[cell.trigger.group];
  if (cell.trigger.key === 'fork-run') return "fork PR's failing run, whoever started it";
  switch (cell.account.kind) {
    case 'app':
      return cell.trigger.group === 'run'
        ? 'the App has a failed run on a branch it did not push'
        : `the App ${what} (itself)`;
    case 'bot':
      return `a Bot account ${what}, whatever its permission or allowed_users`;
    case 'suffixed':
      return `a login ending [bot] posing as a User ${what}`;
    case 'user':
      return WRITERS.includes(cell.permission)
        ? `a writer left out of allowed_users ${what}`
        : `a none/read/triage user ${what}`;
  }
}

const BY: Record<string, string> = {
  "fork PR's failing run, whoever started it":
    'head repository is not the base: a skipped check run, no job (no clone, no push)',
  'the App has a failed run on a branch it did not push':
    'the App is trusted only on its own selfdebug/ branches',
};

function byFor(className: string): string {
  if (BY[className]) return BY[className];
  if (className.startsWith('the App ')) return 'the App never obeys itself: ignored without a reply';
  if (className.startsWith('a Bot account')) return 'sender type Bot: ignored without a reply';
  if (className.startsWith('a login ending')) return 'a [bot] login is a bot whatever its type: ignored';
  if (className.startsWith('a writer left out')) return 'allowed_users narrows who may start a job';
  return 'collaborator permission API: write, maintain or admin needed';
}

const CELLS: Cell[] = PERMISSIONS.flatMap((permission) =>
  ACCOUNTS.flatMap((account) =>
    TRIGGERS.flatMap((trigger) =>
      ALLOWED_USERS.map((allowedUsers) => ({ permission, account, trigger, allowedUsers })),
    ),
  ),
);

// ── Playing one cell ───────────────────────────────────────────────────────────────────────────

function configYaml(cell: Cell): string {
  const lines = ['triggers:', '  workflow_runs:', '    enabled: true'];
  if (cell.allowedUsers === 'lists sender') lines.push(`allowed_users: [mona, ${cell.account.listedAs}]`);
  if (cell.allowedUsers === 'lists others') lines.push('allowed_users: [mona, hubot]');
  return `${lines.join('\n')}\n`;
}

interface Outcome {
  jobs: JobRequest[];
  seen: Seen;
  error: unknown;
  mocks: string | null;
}

async function play(cell: Cell): Promise<Outcome> {
  const { trigger, account } = cell;
  const app = await testApp();
  expectInstallationToken({ optional: true });
  expectConfig(trigger.owner, trigger.repo, configYaml(cell), { optional: true });
  const [permission, roleName] = ANSWERS[cell.permission];
  expectPermission(trigger.owner, trigger.repo, account.login, permission, roleName, { optional: true });
  const seen = trigger.mock();
  let error: unknown = null;
  try {
    await deliver(app, trigger.event, trigger.payload(account));
  } catch (thrown) {
    error = thrown;
  }
  await app.queue.stop();
  let mocks: string | null = null;
  try {
    assertGitHubMocksDone();
  } catch (thrown) {
    mocks = String(thrown);
  }
  return { jobs: app.enqueued, seen, error, mocks };
}

/** What is wrong with a cell's outcome, in words; empty when the App did what was intended. */
async function problems(cell: Cell): Promise<string[]> {
  const outcome = await play(cell);
  const found: string[] = [];
  if (outcome.error !== null) found.push(`the handler threw: ${String(outcome.error)}`);
  if (outcome.mocks !== null) found.push(outcome.mocks);
  if (outcome.seen.checkRuns.some((check) => check.conclusion !== 'skipped'))
    found.push('a check run other than skipped');
  if (!intended(cell)) {
    if (outcome.jobs.length > 0) found.push(`a job started (requested by ${outcome.jobs[0]?.requestedBy})`);
    // A person refused on a conversation is told why, once; a run has no conversation.
    const told = cell.account.kind === 'user' && cell.trigger.group !== 'run' ? 1 : 0;
    if (outcome.seen.comments.length !== told)
      found.push(`${outcome.seen.comments.length} refusal comments, ${told} intended`);
    return found;
  }
  const [job] = outcome.jobs;
  if (outcome.jobs.length !== 1 || job === undefined) {
    found.push(`${outcome.jobs.length} jobs started, 1 intended`);
    return found;
  }
  if (job.requestedBy !== cell.account.login) found.push(`requested by ${job.requestedBy}`);
  if (`${job.repository.owner}/${job.repository.name}` !== `${cell.trigger.owner}/${cell.trigger.repo}`)
    found.push('a job for another repository');
  if (cell.trigger.key === 'own-run') {
    // The round cap (max_rounds, counted by commit trailers in run-job.ts) applies exactly when the job knows the branch is its own.
    const target = await resolveTarget(
      job,
      new GitHubCodeHost(testOctokit(), { owner: 'x', repo: 'y', now: () => NOW }),
      reportTargetOf(job).issueNumber,
    );
    if (!target.ownBranch || target.workBranch !== OWN_BRANCH)
      found.push('a run on its own branch not marked as its own: the round cap would not apply');
    if (job.trigger.kind !== 'workflow-run' || job.trigger.ownPullRequest !== 2)
      found.push('the run on its own branch does not name its pull request');
  }
  return found;
}

async function expectAsIntended(cells: readonly Cell[]): Promise<void> {
  const wrong: string[] = [];
  for (const cell of cells) {
    for (const problem of await problems(cell)) wrong.push(`${name(cell)}: ${problem}`);
  }
  expect(wrong).toEqual([]);
}

// ── The matrix ─────────────────────────────────────────────────────────────────────────────────

beforeEach(() => blockNetwork());
afterEach(() => assertGitHubMocksDone());

describe('authorization matrix', () => {
  it('covers every permission × sender type × trigger × allowed_users', () => {
    expect(CELLS).toHaveLength(PERMISSIONS.length * ACCOUNTS.length * TRIGGERS.length * ALLOWED_USERS.length);
    expect(CELLS.filter(intended)).toHaveLength(3 * 2 * 6 + 6 * 3);
  });

  describe('a job starts', () => {
    it.each(CELLS.filter(intended).map((cell) => [name(cell), cell] as const))('%s', async (_name, cell) => {
      await expectAsIntended([cell]);
    });
  });

  describe('no job starts', () => {
    const attack = attackSuite('authorization');
    const classes = new Map<string, Cell[]>();
    for (const cell of CELLS.filter((candidate) => !intended(candidate))) {
      const key = deniedClass(cell);
      classes.set(key, [...(classes.get(key) ?? []), cell]);
    }
    for (const [className, cells] of classes) {
      attack(`${className} (${cells.length} cells)`, byFor(className), () => expectAsIntended(cells));
    }

    attack(
      "a writer's mention on a fork's pull request reaches the fork's code",
      'the job refuses it when it resolves the pull request, before any checkout or push',
      async () => {
        const app = await testApp();
        expectInstallationToken();
        expectConfig(...HELLO, null);
        expectPermission(...HELLO, 'Codertocat', 'write');
        expectReaction(...HELLO, { commentId: 492700400 }, 'eyes');
        await deliver(app, 'issue_comment', commentMention(ACCOUNTS[0]!, true));
        await app.queue.stop();
        // The comment's payload does not say where the pull request's head lives; the job asks first.
        const [job] = app.enqueued;
        expect(job?.trigger).toMatchObject({ kind: 'mention', isPullRequest: true });
        const pull = documentedExample('GET /repos/{owner}/{repo}/pulls/{pull_number}', 200) as {
          head: { repo: object };
        };
        githubApi()
          .get(`/repos/${HELLO[0]}/${HELLO[1]}/pulls/1`)
          .reply(
            documentedReply(200, {
              ...pull,
              number: 1,
              // GitHub's example lists a team without the `type` its schema requires.
              requested_teams: [],
              head: { ...pull.head, repo: { ...pull.head.repo, full_name: 'forker/Hello-World' } },
            }),
          );
        const host = new GitHubCodeHost(testOctokit(), { owner: HELLO[0], repo: HELLO[1], now: () => NOW });
        await expect(resolveTarget(job!, host, reportTargetOf(job!).issueNumber)).rejects.toBeInstanceOf(
          JobRefusedError,
        );
      },
    );
  });
});
