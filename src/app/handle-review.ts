import type { Context } from 'probot';
import { type JobRequest, repositoryKey } from '../queue/job-request.js';
import { isOwnBranch } from '../workspace/selfdebug-branches.js';
import { authorize, isAutomated, refusalText } from './authorize.js';
import { jobRequest } from './build-request.js';
import type { AppDependencies } from './dependencies.js';
import { enqueueWithinCeiling } from './enqueue-within-ceiling.js';
import { stripHiddenText } from './issue-text.js';

/**
 * A review on a pull request the App opened: its comments become the next
 * job's task, on the same branch. Approvals and reviews elsewhere are none
 * of our business.
 */
export async function handleReview(
  context: Context<'pull_request_review.submitted'>,
  dependencies: AppDependencies,
): Promise<void> {
  const { pull_request: pull, review, repository, sender } = context.payload;
  const ownBranch = isOwnBranch(pull.head.ref) && pull.head.repo?.full_name === repository.full_name;
  const state = review.state.toLowerCase();
  if (!ownBranch || (state !== 'changes_requested' && state !== 'commented')) return;

  if (isAutomated(sender, dependencies.handle)) return;
  const host = dependencies.codeHostFor(context);
  const config = await dependencies.repoConfigFor(context);
  if (config.ok && !config.config.reviews) return;
  const authorization = await authorize(
    host,
    sender,
    dependencies.handle,
    config.ok ? config.config.allowedUsers : [],
  );
  if (!authorization.allowed) {
    if (authorization.reason !== 'automated')
      await host.createComment(pull.number, refusalText(sender.login, authorization));
    return;
  }
  const job = reviewJob(context, dependencies);
  if (await enqueueWithinCeiling(dependencies, host, job))
    await host.react({ issueNumber: pull.number }, 'eyes');
}

/** The next round on the pull request's own branch, its task the review's text; one job per review. */
function reviewJob(
  context: Context<'pull_request_review.submitted'>,
  dependencies: AppDependencies,
): JobRequest {
  const { pull_request: pull, review, repository, sender } = context.payload;
  const key = repositoryKey({ owner: repository.owner.login, name: repository.name });
  return jobRequest(context, dependencies, {
    repository,
    requestedBy: sender.login,
    headSha: pull.head.sha,
    baseBranch: pull.base.ref,
    trigger: {
      kind: 'review',
      pullNumber: pull.number,
      reviewId: review.id,
      commentId: null,
      branch: pull.head.ref,
      text: stripHiddenText(review.body ?? ''),
      comments: [],
    },
    dedupeKey: `review:${key}:${review.id}`,
  });
}
