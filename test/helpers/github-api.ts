/**
 * Strict, schema-checked mocks of GitHub's REST API.
 *
 * ```ts
 * import { assertGitHubMocksDone, blockNetwork, documentedReply, githubApi, testOctokit } from '../helpers/github-api.js';
 *
 * beforeEach(() => blockNetwork());
 * afterEach(() => assertGitHubMocksDone());
 *
 * it('comments', async () => {
 *   githubApi()
 *     .post('/repos/octo-org/app/issues/7/comments', { body: 'hello' })
 *     .reply(201, { id: 1, html_url: 'https://github.com/octo-org/app/issues/7#issuecomment-1' });
 *   // Or let the helper also check the mocked answer against GitHub's documented response:
 *   //   .reply(documentedReply(201, { ...documentedExample('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', 201), id: 1 }))
 *   await new GitHubCodeHost(testOctokit(), { owner: 'octo-org', repo: 'app' }).createComment(7, 'hello');
 * });
 * ```
 *
 * Every request a `githubApi()` mock intercepts is looked up in GitHub's
 * OpenAPI description: a route GitHub does not have, an undocumented query
 * parameter, or a JSON body GitHub's schema would reject is recorded, and
 * `assertGitHubMocksDone()` fails the test with the list. It also fails on
 * mocks left unused and on requests no mock matched, then clears all mocks.
 * Only loopback addresses are reachable while `blockNetwork()` is in force.
 *
 * `documentedExample('GET /repos/{owner}/{repo}/pulls/{pull_number}', 200)`
 * gives GitHub's own example body to start a realistic reply from (a few of
 * GitHub's examples miss fields its schema requires; `documentedReply` says
 * which). Mocks for other hosts (a log storage host, say) use plain `nock()`;
 * `assertGitHubMocksDone()` checks those for use and matches as well.
 */
import nock from 'nock';
import { ProbotOctokit } from 'probot';
import {
  documentedExample,
  findOperation,
  operationNamed,
  parameterProblems,
  requestBodyProblems,
  responseBodyProblems,
} from './openapi-operations.js';

export { documentedExample, operationNamed };

export const GITHUB_API = 'https://api.github.com';
export const TEST_TOKEN = 'ghs_testtoken0123456789';

const LOOPBACK = /^(?:127\.0\.0\.1|localhost|\[::1\]|::1)(?::\d+)?$/i;

// Per test file (vitest isolates modules per file); reset by assertGitHubMocksDone.
const problems: string[] = [];
const unmatched: string[] = [];
let listening = false;

function recordUnmatched(request: { method?: string; path?: string; href?: string; host?: string }): void {
  // Loopback servers (a model stand-in) are let through and answer for themselves; only GitHub is mocked.
  const host = request.host ?? (request.href ? new URL(request.href).host : '');
  if (LOOPBACK.test(host)) return;
  unmatched.push(`${request.method ?? '?'} ${request.href ?? `${request.host ?? ''}${request.path ?? ''}`}`);
}

/** Refuses every connection but loopback ones, and starts recording requests no mock matched. */
export function blockNetwork(): void {
  nock.disableNetConnect();
  nock.enableNetConnect((host: string) => LOOPBACK.test(host));
  if (!listening) {
    nock.emitter.on('no match', recordUnmatched);
    listening = true;
  }
}

/** A nock scope for api.github.com whose requests are checked against GitHub's OpenAPI description. */
export function githubApi(options?: nock.Options): nock.Scope {
  blockNetwork();
  const scope = nock(GITHUB_API, options);
  scope.on('request', (request: { method?: string; path?: string }, _interceptor: unknown, body: string) => {
    problems.push(...requestProblems(request.method ?? 'GET', request.path ?? '/', body ?? ''));
  });
  return scope;
}

export function requestProblems(method: string, path: string, body: string): string[] {
  const url = new URL(path, GITHUB_API);
  const found = findOperation(method, url.pathname);
  const name = `${method.toUpperCase()} ${url.pathname}`;
  if (found === undefined) return [`${name}: GitHub's REST API has no such route`];
  const { operation, pathParameters } = found;
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    query[key] = values.length === 1 ? (values[0] ?? '') : values;
  }
  return [
    ...parameterProblems(operation, 'path', pathParameters),
    ...parameterProblems(operation, 'query', query),
    ...requestBodyProblems(operation, body),
  ].map((problem) => `${name} (${operation.method.toUpperCase()} ${operation.template}): ${problem}`);
}

type ReplyContext = nock.ReplyFnContext;

/**
 * A reply whose body is first checked against the response GitHub documents
 * for that status; a mismatch is recorded like a request problem.
 */
export function documentedReply(
  status: number,
  body: nock.Body,
  headers?: nock.ReplyHeaders,
): (this: ReplyContext, uri: string) => nock.ReplyFnResult {
  return function reply(this: ReplyContext, uri: string) {
    const method = this.req.method ?? 'GET';
    const url = new URL(uri, GITHUB_API);
    const found = findOperation(method, url.pathname);
    const name = `${method} ${url.pathname} → ${status}`;
    if (found === undefined) problems.push(`${name}: GitHub's REST API has no such route`);
    else {
      const issues = responseBodyProblems(found.operation, status, body);
      problems.push(
        ...issues.map((problem) => `${name} (response of ${found.operation.template}): ${problem}`),
      );
    }
    return headers === undefined ? [status, body] : [status, body, headers];
  };
}

/** For afterEach: every mock used, every request matched, every request and mocked response valid. */
export function assertGitHubMocksDone(): void {
  const pending = nock.pendingMocks();
  const failures = [
    ...pending.map((mock) => `mock never called: ${mock}`),
    ...unmatched.map((request) => `request no mock matched: ${request}`),
    ...problems.map((problem) => `GitHub would reject or never send: ${problem}`),
  ];
  problems.length = 0;
  unmatched.length = 0;
  nock.cleanAll();
  nock.abortPendingRequests();
  if (failures.length > 0) throw new Error(`GitHub mocks:\n  ${failures.join('\n  ')}`);
}

/** Problems recorded so far, without clearing them; for tests of this helper. */
export function recordedProblems(): readonly string[] {
  return [...problems, ...unmatched];
}

/**
 * Retries and throttling would hide a failed request or slow a test down.
 * The function form matters: Probot adds its own throttle options when it
 * builds the client and would override a plain defaults object.
 */
const TestOctokit = ProbotOctokit.defaults((instanceOptions: object) => ({
  ...instanceOptions,
  retry: { enabled: false },
  throttle: { enabled: false },
}));

/** A ProbotOctokit authenticated with a fake installation token (`token ghs_test…`). */
export function testOctokit(): ProbotOctokit {
  return new TestOctokit({ auth: { token: TEST_TOKEN } });
}
