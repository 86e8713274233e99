import {
  authorAssociation,
  example,
  type Json,
  labelObject,
  nodeId,
  rehome,
  replaceInStrings,
  repositoryObject,
  userObject,
} from './objects.js';
import type { IssueState, PullState, RepositoryState, ReviewState, StandinState } from './state.js';

const EXAMPLE_NUMBER = /\/(issues|pulls|pull)\/1347\b/g;
const EXAMPLE_HEAD_SHA = /6dcb09b5b57875f334f61aebed695e2e4193db5e/g;

/**
 * A pull request: `full` as GET and POST answer it, `simple` as the list
 * does. `issue` is the number's record, whose `pull` holds the branches.
 */
export function pullObject(
  state: StandinState,
  repository: RepositoryState,
  issue: IssueState & { pull: PullState },
  kind: 'full' | 'simple',
): Json {
  const { site } = state;
  const { pull } = issue;
  const name =
    kind === 'full' ? 'GET /repos/{owner}/{repo}/pulls/{pull_number}' : 'GET /repos/{owner}/{repo}/pulls';
  const shaped = replaceInStrings(rehome(example(name, 200), site, repository.fullName), [
    [EXAMPLE_NUMBER, `/$1/${issue.number}`],
    [EXAMPLE_HEAD_SHA, pull.headSha],
  ]);
  const comments = repository.comments.filter((comment) => comment.issueNumber === issue.number).length;
  const reviewComments = repository.reviews
    .filter((review) => review.pullNumber === issue.number)
    .reduce((sum, review) => sum + review.comments.length, 0);
  const common = {
    ...shaped,
    id: issue.id,
    node_id: nodeId('PullRequest', issue.id),
    number: issue.number,
    state: issue.state,
    locked: false,
    title: issue.title,
    body: issue.body,
    user: userObject(state, issue.user),
    labels: issue.labels.map((label) => labelObject(state, repository, label)),
    milestone: null,
    active_lock_reason: null,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    closed_at: issue.closedAt,
    merged_at: null,
    merge_commit_sha: null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    head: branchObject(state, repository, pull.head, pull.headSha),
    base: branchObject(state, repository, pull.base, pull.baseSha),
    author_association: authorAssociation(repository, issue.user),
    auto_merge: null,
    draft: pull.draft,
  };
  if (kind === 'simple') return common;
  return {
    ...common,
    merged: false,
    mergeable: true,
    rebaseable: true,
    mergeable_state: 'clean',
    merged_by: null,
    comments,
    review_comments: reviewComments,
    maintainer_can_modify: false,
    commits: 1,
    additions: 0,
    deletions: 0,
    changed_files: 0,
  };
}

/** One side of a pull request; the stand-in has no forks, so both sides are the same repository. */
function branchObject(state: StandinState, repository: RepositoryState, ref: string, sha: string): Json {
  return {
    label: `${repository.owner}:${ref}`,
    ref,
    sha,
    user: userObject(state, repository.owner),
    repo: repositoryObject(state, repository),
  };
}

const REVIEW_STATES = { CHANGES_REQUESTED: 'CHANGES_REQUESTED', COMMENTED: 'COMMENTED' } as const;

export function reviewObject(state: StandinState, repository: RepositoryState, review: ReviewState): Json {
  const { site } = state;
  const pullUrl = `${site.apiUrl}/repos/${repository.fullName}/pulls/${review.pullNumber}`;
  const html = `${site.webUrl}/${repository.fullName}/pull/${review.pullNumber}#pullrequestreview-${review.id}`;
  return {
    ...rehome(
      example('GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews', 200),
      site,
      repository.fullName,
    ),
    id: review.id,
    node_id: nodeId('PullRequestReview', review.id),
    user: userObject(state, review.user),
    body: review.body,
    state: REVIEW_STATES[review.state],
    html_url: html,
    pull_request_url: pullUrl,
    _links: { html: { href: html }, pull_request: { href: pullUrl } },
    submitted_at: review.submittedAt,
    commit_id: review.commitId,
    author_association: authorAssociation(repository, review.user),
  };
}

export function reviewCommentObjects(
  state: StandinState,
  repository: RepositoryState,
  review: ReviewState,
): Json[] {
  const { site } = state;
  const template = rehome(
    example('GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/comments', 200),
    site,
    repository.fullName,
  );
  const pullUrl = `${site.apiUrl}/repos/${repository.fullName}/pulls/${review.pullNumber}`;
  return review.comments.map((comment) => {
    const url = `${site.apiUrl}/repos/${repository.fullName}/pulls/comments/${comment.id}`;
    const html = `${site.webUrl}/${repository.fullName}/pull/${review.pullNumber}#discussion_r${comment.id}`;
    const { in_reply_to_id: _reply, ...rest } = template;
    return {
      ...rest,
      url,
      id: comment.id,
      node_id: nodeId('PullRequestReviewComment', comment.id),
      pull_request_review_id: review.id,
      diff_hunk: `@@ -${comment.line},1 +${comment.line},1 @@`,
      path: comment.path,
      position: 1,
      original_position: 1,
      commit_id: review.commitId,
      original_commit_id: review.commitId,
      user: userObject(state, review.user),
      body: comment.body,
      created_at: review.submittedAt,
      updated_at: review.submittedAt,
      html_url: html,
      pull_request_url: pullUrl,
      author_association: authorAssociation(repository, review.user),
      _links: { self: { href: url }, html: { href: html }, pull_request: { href: pullUrl } },
      line: comment.line,
      original_line: comment.line,
      side: 'RIGHT',
      start_line: null,
      original_start_line: null,
      start_side: null,
      subject_type: 'line',
    };
  });
}
