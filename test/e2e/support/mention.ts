import type { GitHubStandin, StandinRepository } from '../../fakes/github-standin/standin.js';
import { issueCommentPayload, type Json } from './payloads.js';

/**
 * A new issue of `repo` whose title and body are `issueText`, opened by `login`, and `login`'s
 * comment `body` on it, both in the stand-in; with the `issue_comment` payload GitHub delivers for
 * that comment.
 */
export function mentionInNewIssue(
  standin: GitHubStandin,
  repo: StandinRepository,
  mention: { login: string; body: string; issueText: string },
) {
  const { login, body, issueText } = mention;
  const issue = standin.createIssue(repo.fullName, { title: issueText, body: issueText, user: login });
  const comment = standin.createIssueComment(repo.fullName, issue.number, { body, user: login });
  const payload: Json = issueCommentPayload(
    repo,
    standin.installationId,
    { number: issue.number, title: issueText, body: issueText, user: login },
    { id: comment.id, body, user: login },
  );
  return { issue, comment, payload };
}
