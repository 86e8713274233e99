/**
 * A Probot wired as in production (src/index.ts): the real handlers, the
 * real GitHub adapter over `context.octokit` and the real config loader
 * (Probot's config plugin). Only the queue's runner is replaced, so no job
 * runs; tests assert on the JobRequests it was given and on the requests
 * GitHub received, each mocked with `githubApi()` and so checked against
 * GitHub's OpenAPI description.
 *
 * ```ts
 * beforeEach(() => blockNetwork());
 * afterEach(() => assertGitHubMocksDone());
 *
 * it('enqueues', async () => {
 *   const app = await testApp();
 *   expectInstallationToken();
 *   expectConfig('Codertocat', 'Hello-World', null);
 *   …
 *   await deliver(app, 'issue_comment', mentionComment('@selfdebug fix'));
 *   expect(app.enqueued).toHaveLength(1);
 * });
 * ```
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type Context, Probot, ProbotOctokit } from 'probot';
import { GitHubCodeHost } from '../../src/adapters/github/index.js';
import { cachedRepoConfig } from '../../src/app/config-cache.js';
import type { AppDependencies } from '../../src/app/dependencies.js';
import { handlersInFlight, registerHandlers } from '../../src/app/register-handlers.js';
import { repoConfigLoader } from '../../src/app/repo-config-for.js';
import type { JobRequest } from '../../src/queue/job-request.js';
import { type JobRunner, MemoryQueue } from '../fakes/memory-queue.js';
import { documentedExample, documentedReply, githubApi } from './github-api.js';

/** Every example payload is given this installation, so every handler authenticates the same way. */
export const INSTALLATION_ID = 4242;
/** The clock of the handlers (`createdAt`) and of the GitHub adapter (check runs' `completed_at`). */
export const NOW = new Date('2026-01-02T03:04:05Z');

const privateKey = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
}).privateKey;

// Retries and throttling would hide a failed request or slow a test down. The
// function form matters: Probot adds its own throttle options when it builds a client.
const TestOctokit = ProbotOctokit.defaults((options: object) => ({
  ...options,
  retry: { enabled: false },
  throttle: { enabled: false },
}));

export interface TestApp {
  probot: Probot;
  queue: MemoryQueue;
  /** What the default runner was handed, in order; empty when the test brings its own runner. */
  enqueued: JobRequest[];
}

type ProbotLogger = NonNullable<NonNullable<ConstructorParameters<typeof Probot>[0]>['log']>;

/** What `testApp` may be given beyond the defaults. */
export interface TestAppOptions {
  /** Replaces the recording runner (e.g. one that blocks until aborted). */
  runner?: JobRunner;
  concurrency?: number;
  /** Cache the repository configuration as src/index.ts does (config-cache.ts). */
  cacheConfig?: boolean;
  /** The webhook secret, for tests that POST signed deliveries through Probot's middleware. */
  secret?: string;
  /** A logger in place of Probot's own at level `fatal` (e.g. one that records warnings). */
  log?: ProbotLogger;
  /** Replaces the real config loader (no `.github/selfdebug.yml` request is then made). */
  repoConfigFor?: AppDependencies['repoConfigFor'];
  /** The operator's cost ceiling, as src/index.ts builds it from SELFDEBUG_COST_CEILING_USD. */
  costCeiling?: AppDependencies['costCeiling'];
  /** The follower of fixes' CI that workflow_run and check_suite events tell (docs/ci-verdict.md). */
  ciVerdicts?: AppDependencies['ciVerdicts'];
}

/**
 * Job ids are `job-1`, `job-2`, … in the order handlers build requests.
 * `runner` replaces the recording one (e.g. one that blocks until aborted).
 */
export async function testApp(options: TestAppOptions = {}): Promise<TestApp> {
  const enqueued: JobRequest[] = [];
  const record: JobRunner = async (request) => {
    enqueued.push(request);
  };
  const queue = new MemoryQueue(options.runner ?? record, options.concurrency ?? 2);
  const probot = new Probot({
    appId: 123,
    privateKey,
    Octokit: TestOctokit,
    ...(options.secret === undefined ? {} : { secret: options.secret }),
    ...(options.log === undefined ? { logLevel: 'fatal' as const } : { log: options.log }),
  });
  const codeHostFor = (context: Context) =>
    new GitHubCodeHost(context.octokit, { ...context.repo(), now: () => NOW });
  let next = 0;
  // Uncached by default, so each test's config mocks are asked for; src/index.ts caches (config-cache.ts).
  const loader = options.repoConfigFor ?? repoConfigLoader(codeHostFor);
  const cached = options.cacheConfig ? cachedRepoConfig(loader) : null;
  await probot.load((app) => {
    registerHandlers(app, {
      handle: 'selfdebug',
      queue,
      codeHostFor,
      repoConfigFor: cached ?? loader,
      ...(cached ? { forgetRepoConfig: cached.forget } : {}),
      newJobId: () => `job-${++next}`,
      now: () => NOW,
      costCeiling: options.costCeiling ?? null,
      ...(options.ciVerdicts ? { ciVerdicts: options.ciVerdicts } : {}),
    });
  });
  return { probot, queue, enqueued };
}

type WebhookEvent = Parameters<Probot['receive']>[0];

/**
 * Hands one delivery to Probot (under `id`, or a fresh delivery id), then
 * waits until the queue has nothing waiting or running, unless told not to
 * (a runner that blocks until aborted never lets it idle).
 */
export async function deliver(
  app: TestApp,
  name: string,
  payload: object,
  options: { id?: string; waitForJobs?: boolean } = {},
): Promise<void> {
  const id = options.id ?? nextDeliveryId();
  await app.probot.receive({ id, name, payload } as unknown as WebhookEvent);
  await settleHandlers(app.probot);
  if (options.waitForJobs ?? true) await app.queue.idle();
}

/**
 * Probot has answered before the handler ran (registerHandlers acknowledges
 * first): waits for it, and fails the test with the handler's own error.
 */
export async function settleHandlers(probot: Probot): Promise<void> {
  const inFlight = handlersInFlight(probot);
  await inFlight?.idle();
  const [failure] = inFlight?.takeFailures() ?? [];
  if (failure !== undefined) throw failure;
}

let deliveries = 0;
function nextDeliveryId(): string {
  deliveries += 1;
  return `delivery-${deliveries}`;
}

// ── GitHub's own payload examples (@octokit/webhooks-examples) ────────────────────────────────

type Example = { action?: unknown } & Record<string, unknown>;
let index: { name: string; examples: Example[] }[] | undefined;

function examples(): { name: string; examples: Example[] }[] {
  index ??= (
    JSON.parse(
      readFileSync(
        new URL('../../node_modules/@octokit/webhooks-examples/api.github.com/index.json', import.meta.url),
        'utf8',
      ),
    ) as unknown[]
  )
    // Read tolerantly: an entry of another shape is skipped rather than trusted.
    .filter(
      (entry): entry is { name: string; examples: Example[] } =>
        typeof entry === 'object' &&
        entry !== null &&
        typeof (entry as { name?: unknown }).name === 'string' &&
        Array.isArray((entry as { examples?: unknown }).examples),
    );
  return index;
}

/**
 * A fresh copy of GitHub's `<event>.<action>` example number `which` (or the
 * first one `which` accepts). Its one edit: the installation is set to
 * INSTALLATION_ID, added when the example has none (every App delivery has one).
 */
export function example<T>(event: string, action: string, which: number | ((example: T) => boolean) = 0): T {
  const candidates = (examples().find((entry) => entry.name === event)?.examples ?? []).filter(
    (item) => typeof item === 'object' && item !== null && item.action === action,
  );
  const found =
    typeof which === 'number' ? candidates[which] : candidates.find((item) => which(item as unknown as T));
  if (found === undefined)
    throw new Error(`@octokit/webhooks-examples has no such ${event}.${action} example`);
  const copy = structuredClone(found);
  copy.installation = {
    ...(typeof copy.installation === 'object' ? copy.installation : {}),
    id: INSTALLATION_ID,
    node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNDI0Mg==',
  };
  return copy as unknown as T;
}

// ── Mocks of the GitHub calls every handler makes ─────────────────────────────────────────────

/**
 * `optional: true` lets a mock go unused without failing the test (nock's
 * `optionally()`): for tables that describe what GitHub would answer and
 * assert on what the App did, not on which calls it made. A request no mock
 * matches still fails the test.
 */
export interface MockOptions {
  optional?: boolean;
}

/**
 * The installation token request a delivery's first API call makes. Probot
 * caches the token, so later deliveries in the same test make no new request.
 */
export function expectInstallationToken(options: MockOptions = {}): void {
  githubApi()
    .post(`/app/installations/${INSTALLATION_ID}/access_tokens`)
    .optionally(options.optional ?? false)
    .reply(201, { token: 'ghs_installation0123456789', expires_at: '2099-01-01T00:00:00Z', permissions: {} });
}

const CONFIG = '/contents/.github%2Fselfdebug.yml';
const NOT_FOUND = {
  message: 'Not Found',
  documentation_url: 'https://docs.github.com/rest/repos/contents#get-repository-content',
};

/**
 * `.github/selfdebug.yml` as Probot's config plugin asks for it (the raw
 * media type, so GitHub answers with the file's text), or, for `null`, no
 * file anywhere: 404 in the repository, then 404 in the owner's `.github`
 * repository, which the plugin tries next.
 */
export function expectConfig(
  owner: string,
  repo: string,
  yaml: string | null,
  options: MockOptions = {},
): void {
  const scope = githubApi({ reqheaders: { accept: 'application/vnd.github.v3.raw' } });
  const optional = options.optional ?? false;
  if (yaml === null) {
    scope
      .get(`/repos/${owner}/${repo}${CONFIG}`)
      .optionally(optional)
      .reply(404, NOT_FOUND)
      .get(`/repos/${owner}/.github${CONFIG}`)
      .optionally(optional)
      .reply(404, NOT_FOUND);
  } else {
    scope
      .get(`/repos/${owner}/${repo}${CONFIG}`)
      .optionally(optional)
      .reply(200, yaml, { 'content-type': 'text/plain; charset=utf-8' });
  }
}

/**
 * The collaborator permission request. `permission` is the legacy field
 * (admin, write, read) and `roleName` the role (maintain and triage show
 * only there); `none` answers 404, as GitHub does for a non-collaborator.
 */
export function expectPermission(
  owner: string,
  repo: string,
  login: string,
  permission: string,
  roleName = permission,
  options: MockOptions = {},
): void {
  // Octokit escapes the login (`dependabot%5Bbot%5D`).
  const path = `/repos/${owner}/${repo}/collaborators/${encodeURIComponent(login)}/permission`;
  const optional = options.optional ?? false;
  if (permission === 'none') {
    githubApi()
      .get(path)
      .optionally(optional)
      .reply(
        documentedReply(404, {
          message: 'Not Found',
          documentation_url:
            'https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user',
        }),
      );
    return;
  }
  const body = documentedExample('GET /repos/{owner}/{repo}/collaborators/{username}/permission', 200) as {
    user: object;
  };
  // GitHub's example user lacks the `role_name` its schema requires.
  const user = { ...body.user, login, role_name: roleName };
  githubApi()
    .get(path)
    .optionally(optional)
    .reply(documentedReply(200, { ...body, permission, role_name: roleName, user }));
}

/**
 * A new comment on issue or pull request `number`; returns the bodies posted,
 * so a test can assert on the exact text.
 */
export function expectComment(
  owner: string,
  repo: string,
  number: number,
  options: MockOptions = {},
): string[] {
  const posted: string[] = [];
  const reply = documentedExample('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', 201) as object;
  githubApi()
    .post(`/repos/${owner}/${repo}/issues/${number}/comments`, (body: { body: string }) => {
      posted.push(body.body);
      return true;
    })
    .optionally(options.optional ?? false)
    .reply(documentedReply(201, { ...reply, body: '(mocked)' }));
  return posted;
}

/** A reaction on an issue comment (`{ commentId }`) or on an issue or pull request (`{ issueNumber }`). */
export function expectReaction(
  owner: string,
  repo: string,
  target: { commentId: number } | { issueNumber: number },
  content: string,
  options: MockOptions = {},
): void {
  const [path, name] =
    'commentId' in target
      ? [
          `/repos/${owner}/${repo}/issues/comments/${target.commentId}/reactions`,
          'POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions',
        ]
      : [
          `/repos/${owner}/${repo}/issues/${target.issueNumber}/reactions`,
          'POST /repos/{owner}/{repo}/issues/{issue_number}/reactions',
        ];
  const reply = documentedExample(name, 201) as object;
  githubApi()
    .post(path, { content })
    .optionally(options.optional ?? false)
    .reply(documentedReply(201, { ...reply, content }));
}
