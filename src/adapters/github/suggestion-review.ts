import type { SuggestionReview } from '../../code-host/code-host.js';
import { GitHubApiError } from '../../errors/index.js';
import type { GitHubOctokit } from './octokit.js';

/**
 * Posts one review of comments on the pull request's head commit. GitHub
 * answers 422 when a comment names a line outside the pull request's diff;
 * then the fallback review, whose text holds the whole patch, goes instead.
 */
export async function postSuggestionReview(
  octokit: GitHubOctokit,
  repository: { owner: string; repo: string },
  review: SuggestionReview,
): Promise<{ url: string; inline: boolean }> {
  const request = {
    ...repository,
    pull_number: review.pullNumber,
    commit_id: review.commitId,
    event: 'COMMENT' as const,
  };
  try {
    const { data } = await octokit.rest.pulls.createReview({
      ...request,
      body: review.body,
      comments: review.comments,
    });
    return { url: data.html_url, inline: true };
  } catch (error) {
    if (!(error instanceof GitHubApiError) || error.status !== 422) throw error;
    const { data } = await octokit.rest.pulls.createReview({ ...request, body: review.fallbackBody });
    return { url: data.html_url, inline: false };
  }
}
