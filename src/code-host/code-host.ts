import type { Readable } from 'node:stream';
import type { CiRuns } from '../ci-verdict/ci-verdict.js';

/**
 * The CodeHost port: what a job needs from GitHub for one repository. The
 * adapter (src/adapters/github) maps Octokit's errors to ours; the job runner
 * and report/ never see Octokit.
 */
export type Permission = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

export interface PostedComment {
  id: number;
  url: string;
}

export interface PullRequestRef {
  number: number;
  url: string;
  head: string;
  draft: boolean;
}

export interface PullRequestDetails extends PullRequestRef {
  headSha: string;
  /** `owner/name` of the head repository; differs from the base for forks. */
  headRepository: string;
  base: string;
}

export type CheckConclusion = 'success' | 'failure' | 'neutral' | 'cancelled' | 'action_required' | 'skipped';

export interface CheckAnnotation {
  path: string;
  startLine: number;
  endLine: number;
  level: 'notice' | 'warning' | 'failure';
  message: string;
  title?: string;
}

export interface CheckOutput {
  title: string;
  summary: string;
  text?: string;
  annotations?: CheckAnnotation[];
}

export interface CheckRunUpdate {
  status?: 'queued' | 'in_progress' | 'completed';
  conclusion?: CheckConclusion;
  output?: CheckOutput;
  detailsUrl?: string;
}

export interface WorkflowJob {
  id: number;
  name: string;
  conclusion: string | null;
  steps: { number: number; name: string; conclusion: string | null }[];
}

export type Reaction = 'eyes' | '+1' | 'confused' | 'rocket';

export interface CodeHost {
  /** Edits the comment holding `marker` (a hidden HTML comment) on the issue or PR, or creates it. */
  upsertComment(issueNumber: number, marker: string, body: string): Promise<PostedComment>;
  createComment(issueNumber: number, body: string): Promise<PostedComment>;
  react(target: { issueNumber: number } | { commentId: number }, reaction: Reaction): Promise<void>;
  permissionOf(login: string): Promise<Permission>;

  /** The commit a branch points at. */
  branchHead(branch: string): Promise<string>;
  pullRequest(number: number): Promise<PullRequestDetails>;
  /** The inline comments of one review, with their file and line. */
  reviewComments(
    pullNumber: number,
    reviewId: number,
  ): Promise<{ path: string; line: number | null; body: string }[]>;
  addLabels(issueNumber: number, labels: string[]): Promise<void>;
  /** `.github/selfdebug.yml` merged with org defaults and `_extends`, as parsed YAML; null when absent. */
  repoConfigFile(): Promise<unknown>;

  findPullRequest(head: string): Promise<PullRequestRef | null>;
  createPullRequest(request: {
    title: string;
    body: string;
    head: string;
    base: string;
    draft: boolean;
  }): Promise<PullRequestRef>;
  updatePullRequest(number: number, update: { body?: string; title?: string }): Promise<void>;

  createCheckRun(
    request: { name: string; headSha: string } & CheckRunUpdate,
  ): Promise<{ id: number; url: string }>;
  updateCheckRun(id: number, update: CheckRunUpdate): Promise<void>;

  failedJobs(runId: number): Promise<WorkflowJob[]>;
  /** The plain-text log of one job, as a stream (logs can be hundreds of MB). */
  jobLog(jobId: number): Promise<Readable>;
  /**
   * Re-runs the failed jobs of a workflow run (and the jobs that depend on them), as a new attempt
   * of the same run. Needs the Actions write permission.
   */
  rerunFailedJobs(runId: number): Promise<void>;
  /**
   * The failure-level annotations of one job (its check run): where GitHub says that the runner
   * stopped answering, when the job's log is missing or cut short.
   */
  jobFailureAnnotations(jobId: number): Promise<string[]>;
  /** A file's text at a ref, or null when it does not exist. */
  fileContent(path: string, ref: string): Promise<string | null>;
}

/** A job of a run as the Action looks for its own: running ones too, with the runner that has it. */
export interface RunJob extends WorkflowJob {
  /** `queued`, `in_progress`, `completed`, …: the Action's own job is still running when it looks. */
  status: string;
  runnerName: string | null;
}

/** A file a pull request changes: its patch holds the hunks a review comment may name. */
export interface PullRequestFile {
  filename: string;
  patch?: string | undefined;
}

/** One inline comment of a review, as GitHub's review API takes it (a suggestion names the head's lines). */
export interface ReviewComment {
  path: string;
  line: number;
  side: 'RIGHT';
  start_line?: number;
  start_side?: 'RIGHT';
  body: string;
}

export interface SuggestionReview {
  pullNumber: number;
  /** The head commit the comments' lines belong to. */
  commitId: string;
  body: string;
  comments: ReviewComment[];
  /** The review posted instead when GitHub refuses the inline comments (a line outside the diff). */
  fallbackBody: string;
}

/**
 * What the GitHub Action needs of GitHub beyond a job's: the run it runs in,
 * a fork's pull request, and a review of suggestions. The same adapter
 * serves both; the App's jobs and their fakes see only CodeHost.
 */
export interface ActionCodeHost extends CodeHost {
  /** The workflow file a run ran, and every job of its latest attempt, running ones too. */
  workflowRun(runId: number): Promise<{ path: string; jobs: RunJob[] }>;
  /** The open pull requests from `branch` of `owner`'s copy of the repository (a fork's, say). */
  openPullRequestsFrom(
    owner: string,
    branch: string,
  ): Promise<{ number: number; headSha: string; base: string }[]>;
  pullRequestFiles(pullNumber: number): Promise<PullRequestFile[]>;
  /** One review with the inline comments; `inline` is false when GitHub refused them and the fallback went instead. */
  suggestionReview(review: SuggestionReview): Promise<{ url: string; inline: boolean }>;
}

/**
 * What following a fix's CI needs of GitHub beyond a job's: the workflow runs
 * on a commit, and the edit of a text the App wrote earlier (the pull
 * request's body, a job's status comment) that keeps everything else in it.
 * The GitHub adapter serves it; a job and its fakes see only CodeHost.
 */
export interface CiHost extends CodeHost {
  /** The workflow runs GitHub lists for `headSha` (latest attempt of each), and how many workflows are active. */
  ciRuns(headSha: string): Promise<CiRuns>;
  /** Rewrites a comment's body through `edit`; false when the comment is gone. */
  amendComment(commentId: number, edit: (body: string) => string): Promise<boolean>;
  /** Rewrites a pull request's body through `edit`. */
  amendPullRequestBody(number: number, edit: (body: string) => string): Promise<void>;
}
