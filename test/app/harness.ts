import type { Context } from 'probot';
import { documentedExample, documentedReply, githubApi } from '../helpers/github-api.js';
import { expectConfig, expectInstallationToken, expectPermission } from '../helpers/github-handler-mocks.js';
import { example } from '../helpers/probot.js';

/**
 * What several App tests ask GitHub the same way: the writer's checks before
 * a mention becomes a job, and the check run a refused failed run gets.
 */

type CommentPayload = Context<'issue_comment.created'>['payload'];

/** The repository of GitHub's issue_comment.created example, where the mentions are made. */
export const MENTION_OWNER = 'Codertocat';
export const MENTION_REPO = 'Hello-World';

/** GitHub's issue_comment.created example (Codertocat/Hello-World#1), with `body` as the comment. */
export function mentionWith(body: string): CommentPayload {
  const payload = example<CommentPayload>('issue_comment', 'created');
  payload.comment.body = body;
  return payload;
}

/** The writer's path to a job on that repository: a token, no config file anywhere, `permission` for Codertocat. */
export function expectWriter(permission = 'write'): void {
  expectInstallationToken();
  expectConfig(MENTION_OWNER, MENTION_REPO, null);
  expectPermission(MENTION_OWNER, MENTION_REPO, 'Codertocat', permission);
}

/** A check run created on `owner/repo`; returns the bodies posted, so a test can assert on them. */
export function expectCheckRun<Body = Record<string, unknown>>(owner: string, repo: string): Body[] {
  const posted: Body[] = [];
  githubApi()
    .post(`/repos/${owner}/${repo}/check-runs`, (body: Body) => {
      posted.push(body);
      return true;
    })
    .reply(documentedReply(201, documentedExample('POST /repos/{owner}/{repo}/check-runs', 201) as object));
  return posted;
}
