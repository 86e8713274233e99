import {
  authorAssociation,
  example,
  type Json,
  labelObject,
  nodeId,
  reactionRollup,
  rehome,
  replaceInStrings,
  userObject,
} from './objects.js';
import type { CommentState, IssueState, RepositoryState, StandinState } from './state.js';

/** The number GitHub's issue and pull request examples use. */
const EXAMPLE_NUMBER = /\/(issues|pulls|pull)\/1347\b/g;

/** An issue as the issues API shows it; a pull request's number shows as an issue with `pull_request`. */
export function issueObject(state: StandinState, repository: RepositoryState, issue: IssueState): Json {
  const { site } = state;
  const { pull_request: _pullRequest, ...shaped } = replaceInStrings(
    rehome(example('GET /repos/{owner}/{repo}/issues/{issue_number}', 200), site, repository.fullName),
    [[EXAMPLE_NUMBER, `/$1/${issue.number}`]],
  );
  const url = `${site.apiUrl}/repos/${repository.fullName}/issues/${issue.number}`;
  const html = `${site.webUrl}/${repository.fullName}/${issue.pull === undefined ? 'issues' : 'pull'}/${issue.number}`;
  return {
    ...shaped,
    id: issue.id,
    node_id: nodeId(issue.pull === undefined ? 'Issue' : 'PullRequest', issue.id),
    url,
    html_url: html,
    number: issue.number,
    state: issue.state,
    state_reason: issue.state === 'closed' ? 'completed' : null,
    title: issue.title,
    body: issue.body,
    user: userObject(state, issue.user),
    labels: issue.labels.map((name) => labelObject(state, repository, name)),
    assignee: null,
    assignees: [],
    milestone: null,
    locked: false,
    active_lock_reason: null,
    pinned_comment: null,
    comments: repository.comments.filter((comment) => comment.issueNumber === issue.number).length,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    closed_at: issue.closedAt,
    closed_by: null,
    author_association: authorAssociation(repository, issue.user),
    reactions: reactionRollup(repository, `issue:${issue.number}`, url),
    ...(issue.pull === undefined
      ? {}
      : {
          pull_request: {
            url: `${site.apiUrl}/repos/${repository.fullName}/pulls/${issue.number}`,
            html_url: html,
            diff_url: `${html}.diff`,
            patch_url: `${html}.patch`,
            merged_at: null,
          },
        }),
  };
}

export function commentObject(state: StandinState, repository: RepositoryState, comment: CommentState): Json {
  const { site } = state;
  const url = `${site.apiUrl}/repos/${repository.fullName}/issues/comments/${comment.id}`;
  const issue = repository.issues.get(comment.issueNumber);
  const kind = issue?.pull === undefined ? 'issues' : 'pull';
  return {
    ...rehome(
      example('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', 201),
      site,
      repository.fullName,
    ),
    id: comment.id,
    node_id: nodeId('IssueComment', comment.id),
    url,
    html_url: `${site.webUrl}/${repository.fullName}/${kind}/${comment.issueNumber}#issuecomment-${comment.id}`,
    issue_url: `${site.apiUrl}/repos/${repository.fullName}/issues/${comment.issueNumber}`,
    body: comment.body,
    user: userObject(state, comment.user),
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
    author_association: authorAssociation(repository, comment.user),
    reactions: reactionRollup(repository, `comment:${comment.id}`, url),
  };
}
