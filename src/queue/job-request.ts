/**
 * What a webhook handler hands to the queue: everything a worker needs to
 * run the job later, in plain data (it is serialised by durable queues).
 */
export interface RepositoryInfo {
  /** GitHub's numeric id; absent on jobs queued before it was kept (their environments are not cached). */
  id?: number;
  owner: string;
  name: string;
  cloneUrl: string;
  defaultBranch: string;
  private: boolean;
}

/** A ``` block from the issue text, run as the script to fix when no command is given. */
export interface ScriptBlock {
  language: string;
  code: string;
}

interface ReviewComment {
  path: string | null;
  line: number | null;
  body: string;
}

export type JobTrigger =
  | {
      kind: 'mention';
      command: 'fix' | 'explain';
      issueNumber: number;
      isPullRequest: boolean;
      commentId: number | null;
      /** Issue body and the triggering text, hidden HTML already stripped. */
      text: string;
      scriptBlocks: ScriptBlock[];
    }
  | {
      kind: 'workflow-run';
      runId: number;
      runAttempt: number;
      workflowName: string;
      workflowPath: string;
      /** The run's head branch: where the fix goes (as a PR against it, or on it when the App owns it). */
      branch: string;
      /** Set when the branch is one of the App's own, to cap automatic rounds. */
      ownPullRequest: number | null;
    }
  | {
      kind: 'review';
      pullNumber: number;
      reviewId: number | null;
      commentId: number | null;
      branch: string;
      text: string;
      comments: ReviewComment[];
    };

export interface JobOptions {
  command?: string;
  maxAttempts?: number;
  model?: string;
  timeoutSeconds?: number;
}

export interface JobRequest {
  id: string;
  /** The webhook delivery that asked for it: a delivery enqueues at most one job. */
  deliveryId: string;
  /** Identifies the same request seen twice (the same comment, the same failed run attempt). */
  dedupeKey: string;
  installationId: number;
  repository: RepositoryInfo;
  /** The login that asked (or the run's actor); already checked for write access. */
  requestedBy: string;
  /** The commit to debug; null when the job resolves it on start (an issue mention: the base branch's head). */
  headSha: string | null;
  /** Where a pull request would go. */
  baseBranch: string;
  trigger: JobTrigger;
  options: JobOptions;
  createdAt: string;
}

export interface JobQueue {
  /** Accepts a job unless one with the same delivery id or dedupe key was accepted before; says which. */
  enqueue(request: JobRequest): Promise<{ accepted: boolean; jobId: string }>;
  /** Cancels the running or waiting jobs for an issue or pull request; returns how many. */
  cancel(match: JobMatch, reason: string): Promise<number>;
  /** The newest request for an issue or pull request, for `retry`. */
  latest(match: JobMatch): Promise<JobRequest | null>;
  /** Cancels waiting and running jobs for `branch` whose commit is not `sha` (a newer push); returns how many. */
  cancelStale(target: StaleTarget, reason: string): Promise<number>;
}

export interface StaleTarget {
  /** `owner/name`, any case. */
  repository: string;
  branch: string;
  /** The branch's new head: jobs for any other commit are stale. */
  sha: string;
}

/** `repository` is `owner/name`. */
export interface JobMatch {
  repository: string;
  issueNumber: number;
}

/**
 * How the loop works for a trigger: a review asks for changes to a fix that
 * may already pass; `explain` changes nothing. The runner and the reports
 * both ask here.
 */
export type LoopMode = 'fix' | 'explain' | 'revise';

export function loopModeOf(
  trigger: { kind: 'review' | 'workflow-run' } | { kind: 'mention'; command: 'fix' | 'explain' },
): LoopMode {
  if (trigger.kind === 'review') return 'revise';
  return trigger.kind === 'mention' && trigger.command === 'explain' ? 'explain' : 'fix';
}

/** The issue or pull request a job reports to, if any: the one place that says so. */
export function issueNumberOf(request: JobRequest): number | null {
  const { trigger } = request;
  if (trigger.kind === 'mention') return trigger.issueNumber;
  if (trigger.kind === 'review') return trigger.pullNumber;
  return trigger.ownPullRequest;
}

export function repositoryKey(repository: { owner: string; name: string }): string {
  return `${repository.owner}/${repository.name}`.toLowerCase();
}

/**
 * What jobs queue behind each other for: a branch the job reads and may push
 * to (failed runs, reviews), or the issue or pull request it works for (a
 * mention names no branch until the job resolves it; its fix goes to a branch
 * of its own). Two jobs with one key never run at once.
 */
export function serialKeyOf(request: JobRequest): string {
  const { trigger } = request;
  if (trigger.kind === 'workflow-run' || trigger.kind === 'review') return `branch:${trigger.branch}`;
  return trigger.isPullRequest ? `pull:${trigger.issueNumber}` : `issue:${trigger.issueNumber}`;
}

/** The branch whose new pushes make this job stale, when the request pins a commit on one. */
export function staleBranchOf(request: JobRequest): string | null {
  const { trigger } = request;
  if (request.headSha === null) return null;
  return trigger.kind === 'workflow-run' || trigger.kind === 'review' ? trigger.branch : null;
}
