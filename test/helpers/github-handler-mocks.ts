/**
 * Mocks of the GitHub calls every handler makes (installation token, config,
 * permission, comment, reaction), each through `githubApi()` and so checked
 * against GitHub's OpenAPI description.
 */
import { documentedExample, documentedReply, githubApi } from './github-api.js';
import { INSTALLATION_ID } from './probot.js';

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
