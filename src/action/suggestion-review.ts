import type { ActionCodeHost, PullRequestFile, ReviewComment } from '../code-host/code-host.js';
import type { Redactor } from '../report/index.js';
import { moveToHead } from './head-lines.js';
import { placeable, type SuggestionComment, suggestionsFrom } from './suggestions.js';

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

/** Posts the planned review; the fallback's patch stands in for suggestions GitHub refused, and says so. */
export async function postSuggestionReview(
  host: ActionCodeHost,
  plan: SuggestionReviewPlan,
): Promise<{ url: string; notes: string[] }> {
  const posted = await host.suggestionReview(plan);
  return {
    url: posted.url,
    notes: posted.inline
      ? []
      : ['GitHub refused inline suggestions (lines outside the diff); the review holds the patch.'],
  };
}
