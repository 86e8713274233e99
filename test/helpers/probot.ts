/**
 * A Probot wired as in production (src/index.ts): the real handlers, the
 * real GitHub adapter over `context.octokit` and the real config loader
 * (Probot's config plugin). Only the queue's runner is replaced, so no job
 * runs; tests assert on the JobRequests it was given and on the requests
 * GitHub received, each mocked with `githubApi()` and so checked against
 * GitHub's OpenAPI description (the mocks every handler needs are in
 * github-handler-mocks.ts).
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
