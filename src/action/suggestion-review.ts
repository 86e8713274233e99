import type { GitHubOctokit } from '../compose/action-clients.js';
import type { Redactor } from '../report/index.js';
import { moveToHead } from './head-lines.js';
import { placeable, type SuggestionComment, suggestionsFrom } from './suggestions.js';

/** A file of the pull request as GitHub lists it: its patch holds the hunks a review comment may name. */
export interface PullRequestFile {
  filename: string;
  patch?: string | undefined;
}

/** Each changed file's text at the pull request's head and as the run checked it out. */
export type HeadAndCheckedOut = ReadonlyMap<string, { head: string | null; checkedOut: string | null }>;

export interface SuggestionReviewInput {
  /** The fix, against the commit the run checked out. */
  diff: string;
  pull: { number: number; headSha: string };
  files: readonly PullRequestFile[];
  /** null when the run checked out the head itself, so the fix's lines are already the head's. */
  texts: HeadAndCheckedOut | null;
  /** What the fix does, in a sentence (the reflection's summary, or the loop's reason). */
  summary: string;
  runUrl: string;
  redactor: Redactor;
}

/** One inline comment of the review, as the REST API takes it. */
interface ReviewComment {
  path: string;
  line: number;
  side: 'RIGHT';
  start_line?: number;
  start_side?: 'RIGHT';
  body: string;
}

/** The review to post, every text already redacted. */
export interface SuggestionReviewPlan {
  pullNumber: number;
  commitId: string;
  comments: ReviewComment[];
  /** The hunks no comment can carry, as the body writes them out. */
  leftOver: string[];
  body: string;
  /** The review posted instead if GitHub refuses the inline comments: the whole patch in its text. */
  fallbackBody: string;
}

/**
 * One review with a suggestion block per hunk the pull request's diff can
 * hold, so the author applies the fix with "Commit suggestion"; every other
 * hunk is written out in the review's text.
 */
export function planSuggestionReview(input: SuggestionReviewInput): SuggestionReviewPlan {
  const { redactor } = input;
  const suggestions = suggestionsFrom(input.diff);
  const onHead = input.texts === null ? suggestions : moveToHead(suggestions, input.texts);
  const { comments, leftOver } = placeable(onHead, input.files);
  const intro = `selfdebug found a fix for the failure of ${input.runUrl}: ${redactor.redact(input.summary)}`;
  const rest =
    leftOver.length === 0
      ? ''
      : `\n\nOutside the lines this pull request changes, so not suggestions:\n\n${leftOver.join('\n\n')}`;
  return {
    pullNumber: input.pull.number,
    commitId: input.pull.headSha,
    comments: comments.map((comment) => reviewComment(comment, redactor)),
    leftOver: leftOver.map((hunk) => redactor.redact(hunk)),
    body: redactor.redact(`${intro}${rest}`),
    fallbackBody: redactor.redact(`${intro}\n\n\`\`\`diff\n${input.diff}\n\`\`\``),
  };
}

function reviewComment(comment: SuggestionComment, redactor: Redactor): ReviewComment {
  return {
    path: comment.path,
    line: comment.line,
    side: 'RIGHT',
    // A one-line suggestion names only its line; a range names its first line too.
    ...(comment.startLine < comment.line
      ? { start_line: comment.startLine, start_side: 'RIGHT' as const }
      : {}),
    body: redactor.redact(comment.body),
  };
}

/**
 * Posts the planned review. GitHub answers 422 when a comment names a line
 * outside the pull request's diff; then the fallback review goes instead.
 */
export async function postSuggestionReview(
  octokit: GitHubOctokit,
  repository: { owner: string; repo: string },
  plan: SuggestionReviewPlan,
): Promise<{ url: string; notes: string[] }> {
  const request = {
    owner: repository.owner,
    repo: repository.repo,
    pull_number: plan.pullNumber,
    commit_id: plan.commitId,
    event: 'COMMENT' as const,
  };
  try {
    const review = await octokit.rest.pulls.createReview({
      ...request,
      body: plan.body,
      comments: plan.comments,
    });
    return { url: review.data.html_url, notes: [] };
  } catch (error) {
    if (!isUnprocessable(error)) throw error;
    const review = await octokit.rest.pulls.createReview({ ...request, body: plan.fallbackBody });
    return {
      url: review.data.html_url,
      notes: ['GitHub refused inline suggestions (lines outside the diff); the review holds the patch.'],
    };
  }
}

function isUnprocessable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'status' in error && error.status === 422;
}
