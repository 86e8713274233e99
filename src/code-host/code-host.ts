import type { Readable } from 'node:stream';

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
  /** A file's text at a ref, or null when it does not exist. */
  fileContent(path: string, ref: string): Promise<string | null>;
}
