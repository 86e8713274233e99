import { Readable } from 'node:stream';
import type {
  CheckRunUpdate,
  CodeHost,
  Permission,
  PostedComment,
  PullRequestDetails,
  PullRequestRef,
  Reaction,
  WorkflowJob,
} from '../../src/code-host/code-host.js';
import { GitHubApiError, GitHubNotFoundError } from '../../src/errors/github-errors.js';

/** GitHub's limit on comment and pull request bodies. */
const BODY_LIMIT = 65_536;

export type StoredCheckRun = { id: number; name: string; headSha: string } & CheckRunUpdate;

interface Comment {
  id: number;
  issueNumber: number;
  body: string;
}

/**
 * An in-memory CodeHost for job-runner tests: it keeps what a job posted so
 * tests assert on the result, not on HTTP calls (those are the GitHub
 * adapter's tests, against GitHub's OpenAPI description). It answers as
 * GitHub does where a job could tell the difference, errors included:
 * test/contract/code-host.test.ts runs the same suite on it and on the
 * adapter over the GitHub stand-in. Two differences stay, on purpose: it
 * keeps no issues, so a comment, reaction or label on any number is taken
 * where GitHub answers 404; and it opens a pull request whatever its
 * branches hold, since job tests push them to a separate git server.
 */
export class FakeCodeHost implements CodeHost {
  readonly comments: Comment[] = [];
  readonly reactions: { target: { issueNumber: number } | { commentId: number }; reaction: Reaction }[] = [];
  readonly pulls: (PullRequestDetails & { title: string; body: string; labels: string[] })[] = [];
  readonly checkRuns: StoredCheckRun[] = [];
  readonly checkRunUpdates: { id: number; update: CheckRunUpdate }[] = [];
  permissions = new Map<string, Permission>();
  branches = new Map<string, string>();
  /** Files at every ref, for tests that model no commits. */
  files = new Map<string, string>();
  /** Files by commit sha; a ref naming one (or a branch at one) reads these instead of `files`. */
  commits = new Map<string, Map<string, string>>();
  /** The jobs of each workflow run, failed or not. */
  runs = new Map<number, WorkflowJob[]>();
  logs = new Map<number, string>();
  /** The failure annotations of each job (GitHub keeps them on the job's check run). */
  annotations = new Map<number, string[]>();
  /** The runs whose failed jobs were re-run, in order. */
  readonly reruns: number[] = [];
  reviews = new Map<number, { path: string; line: number | null; body: string }[]>();
  config: unknown = null;
  /** Methods refused with a 403, and the permissions GitHub would name as missing (`checks=write`). */
  readonly withheld = new Map<keyof CodeHost, string>();
  private nextId = 1000;

  constructor(readonly repository = 'octo/repo') {}

  async upsertComment(issueNumber: number, marker: string, body: string): Promise<PostedComment> {
    this.refuseWithheld('upsertComment');
    refuseLongBody('IssueComment', body);
    const existing = this.comments.find(
      (comment) => comment.issueNumber === issueNumber && comment.body.includes(marker),
    );
    if (existing) {
      existing.body = body;
      return this.posted(existing);
    }
    return this.createComment(issueNumber, body);
  }

  async createComment(issueNumber: number, body: string): Promise<PostedComment> {
    this.refuseWithheld('createComment');
    refuseLongBody('IssueComment', body);
    const comment = { id: this.nextId++, issueNumber, body };
    this.comments.push(comment);
    return this.posted(comment);
  }

  async react(target: { issueNumber: number } | { commentId: number }, reaction: Reaction): Promise<void> {
    this.refuseWithheld('react');
    this.reactions.push({ target, reaction });
  }

  async permissionOf(login: string): Promise<Permission> {
    this.refuseWithheld('permissionOf');
    return this.permissions.get(login) ?? 'none';
  }

  async branchHead(branch: string): Promise<string> {
    this.refuseWithheld('branchHead');
    const sha = this.branches.get(branch);
    if (!sha) throw new GitHubNotFoundError(`The fake has no branch ${branch}.`);
    return sha;
  }

  async pullRequest(number: number): Promise<PullRequestDetails> {
    this.refuseWithheld('pullRequest');
    const pull = this.pullNumbered(number);
    return {
      ...ref(pull),
      // GitHub reads the head from the branch, wherever it points now.
      headSha: this.branches.get(pull.head) ?? pull.headSha,
      headRepository: pull.headRepository,
      base: pull.base,
    };
  }

  async reviewComments(_pullNumber: number, reviewId: number) {
    this.refuseWithheld('reviewComments');
    const comments = this.reviews.get(reviewId);
    if (comments === undefined) throw new GitHubNotFoundError(`The fake has no review ${reviewId}.`);
    return comments.map((comment) => ({ ...comment }));
  }

  async addLabels(issueNumber: number, labels: string[]): Promise<void> {
    this.refuseWithheld('addLabels');
    this.pulls.find((pull) => pull.number === issueNumber)?.labels.push(...labels);
  }

  async repoConfigFile(): Promise<unknown> {
    this.refuseWithheld('repoConfigFile');
    return this.config;
  }

  async findPullRequest(head: string): Promise<PullRequestRef | null> {
    this.refuseWithheld('findPullRequest');
    const pull = this.pulls.find((candidate) => candidate.head === head);
    return pull === undefined ? null : ref(pull);
  }

  async createPullRequest(request: {
    title: string;
    body: string;
    head: string;
    base: string;
    draft: boolean;
  }): Promise<PullRequestRef> {
    this.refuseWithheld('createPullRequest');
    refuseLongBody('PullRequest', request.body);
    if (this.pulls.some((pull) => pull.head === request.head && pull.base === request.base)) {
      throw new GitHubApiError(`A pull request already exists for ${request.head}.`, { status: 422 });
    }
    const number = this.nextId++;
    const pull = {
      number,
      url: `https://github.com/${this.repository}/pull/${number}`,
      head: request.head,
      draft: request.draft,
      headSha: this.branches.get(request.head) ?? '',
      headRepository: this.repository,
      base: request.base,
      title: request.title,
      body: request.body,
      labels: [],
    };
    this.pulls.push(pull);
    return ref(pull);
  }

  async updatePullRequest(number: number, update: { body?: string; title?: string }): Promise<void> {
    this.refuseWithheld('updatePullRequest');
    const pull = this.pullNumbered(number);
    if (update.body !== undefined) refuseLongBody('PullRequest', update.body);
    if (update.title !== undefined) pull.title = update.title;
    if (update.body !== undefined) pull.body = update.body;
  }

  async createCheckRun(request: { name: string; headSha: string } & CheckRunUpdate) {
    this.refuseWithheld('createCheckRun');
    const id = this.nextId++;
    const run: StoredCheckRun = { id, name: request.name, headSha: request.headSha, status: 'queued' };
    applyCheckRunUpdate(run, request);
    this.checkRuns.push(run);
    return { id, url: `https://github.com/${this.repository}/runs/${id}` };
  }

  async updateCheckRun(id: number, update: CheckRunUpdate): Promise<void> {
    this.refuseWithheld('updateCheckRun');
    const run = this.checkRuns.find((candidate) => candidate.id === id);
    if (run === undefined) throw new GitHubNotFoundError(`The fake has no check run ${id}.`);
    this.checkRunUpdates.push({ id, update });
    applyCheckRunUpdate(run, update);
  }

  async failedJobs(runId: number): Promise<WorkflowJob[]> {
    this.refuseWithheld('failedJobs');
    const jobs = this.runs.get(runId);
    if (jobs === undefined) throw new GitHubNotFoundError(`The fake has no workflow run ${runId}.`);
    return jobs.filter((job) => job.conclusion === 'failure');
  }

  async jobLog(jobId: number): Promise<Readable> {
    this.refuseWithheld('jobLog');
    const log = this.logs.get(jobId);
    if (log === undefined) throw new GitHubNotFoundError(`The fake has no log for job ${jobId}.`);
    return Readable.from([Buffer.from(log, 'utf8')]);
  }

  async jobFailureAnnotations(jobId: number): Promise<string[]> {
    this.refuseWithheld('jobFailureAnnotations');
    return this.annotations.get(jobId) ?? [];
  }

  async rerunFailedJobs(runId: number): Promise<void> {
    this.refuseWithheld('rerunFailedJobs');
    if (!this.runs.has(runId)) throw new GitHubNotFoundError(`The fake has no workflow run ${runId}.`);
    this.reruns.push(runId);
  }

  async fileContent(path: string, ref: string): Promise<string | null> {
    this.refuseWithheld('fileContent');
    const files = this.commits.get(this.branches.get(ref) ?? ref);
    return (files ?? this.files).get(path) ?? null;
  }

  commentsOn(issueNumber: number): string[] {
    return this.comments
      .filter((comment) => comment.issueNumber === issueNumber)
      .map((comment) => comment.body);
  }

  private refuseWithheld(method: keyof CodeHost): void {
    refuseWithheld(method, this.withheld.get(method));
  }

  private pullNumbered(number: number) {
    const pull = this.pulls.find((candidate) => candidate.number === number);
    if (pull === undefined) throw new GitHubNotFoundError(`The fake has no pull request #${number}.`);
    return pull;
  }

  private posted(comment: Comment): PostedComment {
    return {
      id: comment.id,
      url: `https://github.com/${this.repository}/issues/${comment.issueNumber}#issuecomment-${comment.id}`,
    };
  }
}

/** A copy with the fields the port returns, so a caller cannot edit the fake's record. */
function ref(pull: PullRequestRef): PullRequestRef {
  return { number: pull.number, url: pull.url, head: pull.head, draft: pull.draft };
}

/** As GitHub answers an installation that has not accepted a permission the call needs (`checks=write`). */
export function refuseWithheld(method: keyof CodeHost, permissions: string | undefined): void {
  if (permissions === undefined) return;
  const named = permissions.replace(/=/g, ': ');
  throw new GitHubApiError(
    `GitHub refused ${method} (HTTP 403: Resource not accessible by integration): the App lacks the ` +
      `"${named}" permission. Accept the new permissions in the installation settings.`,
    { status: 403 },
  );
}

export function refuseLongBody(resource: string, body: string): void {
  if (body.length <= BODY_LIMIT) return;
  throw new GitHubApiError(`${resource} body is too long (maximum is ${BODY_LIMIT} characters).`, {
    status: 422,
  });
}

/**
 * As GitHub applies one: a conclusion completes the run, output fields are
 * replaced one by one, and annotations add to those already there.
 */
export function applyCheckRunUpdate(run: StoredCheckRun, update: CheckRunUpdate): void {
  if (update.status !== undefined) run.status = update.status;
  if (update.conclusion !== undefined) {
    run.conclusion = update.conclusion;
    run.status = 'completed';
  }
  if (update.detailsUrl !== undefined) run.detailsUrl = update.detailsUrl;
  if (update.output !== undefined) {
    const annotations = [...(run.output?.annotations ?? []), ...(update.output.annotations ?? [])];
    run.output = { ...run.output, ...update.output, annotations };
  }
}
