import { type Trigger, triggers } from '../triggers/index.js';

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

/** What started the job: one trigger kind's data; src/triggers holds what each kind means. */
export type JobTrigger = Trigger;

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

/** The issue or pull request a job reports to, if any: the one place that says so. */
export function issueNumberOf(request: JobRequest): number | null {
  const { trigger } = request;
  return triggers.moduleOf(trigger).issueNumber(trigger);
}

export function repositoryKey(repository: { owner: string; name: string }): string {
  return `${repository.owner}/${repository.name}`.toLowerCase();
}

/**
 * What jobs queue behind each other for: a branch the job reads and may push
 * to (failed runs, reviews), or the issue or pull request it works for; each
 * trigger kind says which. Two jobs with one key never run at once.
 */
export function serialKeyOf(request: JobRequest): string {
  const { trigger } = request;
  return triggers.moduleOf(trigger).serialKey(trigger);
}

/** The branch whose new pushes make this job stale, when the request pins a commit on one. */
export function staleBranchOf(request: JobRequest): string | null {
  const { trigger } = request;
  return request.headSha === null ? null : triggers.moduleOf(trigger).branch(trigger);
}
