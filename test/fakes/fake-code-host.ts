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

interface Comment {
  id: number;
  issueNumber: number;
  body: string;
}

/**
 * An in-memory CodeHost for job-runner tests: it keeps what a job posted so
 * tests assert on the result, not on HTTP calls (those are the GitHub
 * adapter's tests, against GitHub's OpenAPI description).
 */
export class FakeCodeHost implements CodeHost {
  readonly comments: Comment[] = [];
  readonly reactions: { target: unknown; reaction: Reaction }[] = [];
  readonly pulls: (PullRequestDetails & { title: string; body: string; labels: string[] })[] = [];
  readonly checkRuns: ({ id: number; name: string; headSha: string } & CheckRunUpdate)[] = [];
  readonly checkRunUpdates: { id: number; update: CheckRunUpdate }[] = [];
  permissions = new Map<string, Permission>();
  branches = new Map<string, string>();
  files = new Map<string, string>();
  jobs: WorkflowJob[] = [];
  logs = new Map<number, string>();
  reviews = new Map<number, { path: string; line: number | null; body: string }[]>();
  config: unknown = null;
  private nextId = 1000;

  constructor(readonly repository = 'octo/repo') {}

  async upsertComment(issueNumber: number, marker: string, body: string): Promise<PostedComment> {
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
    const comment = { id: this.nextId++, issueNumber, body };
    this.comments.push(comment);
    return this.posted(comment);
  }

  async react(target: { issueNumber: number } | { commentId: number }, reaction: Reaction): Promise<void> {
    this.reactions.push({ target, reaction });
  }

  async permissionOf(login: string): Promise<Permission> {
    return this.permissions.get(login) ?? 'none';
  }

  async branchHead(branch: string): Promise<string> {
    const sha = this.branches.get(branch);
    if (!sha) throw new Error(`no branch ${branch}`);
    return sha;
  }

  async pullRequest(number: number): Promise<PullRequestDetails> {
    const pull = this.pulls.find((candidate) => candidate.number === number);
    if (!pull) throw new Error(`no pull request ${number}`);
    return pull;
  }

  async reviewComments(_pullNumber: number, reviewId: number) {
    return this.reviews.get(reviewId) ?? [];
  }

  async addLabels(issueNumber: number, labels: string[]): Promise<void> {
    this.pulls.find((pull) => pull.number === issueNumber)?.labels.push(...labels);
  }

  async repoConfigFile(): Promise<unknown> {
    return this.config;
  }

  async findPullRequest(head: string): Promise<PullRequestRef | null> {
    return this.pulls.find((pull) => pull.head === head) ?? null;
  }

  async createPullRequest(request: {
    title: string;
    body: string;
    head: string;
    base: string;
    draft: boolean;
  }) {
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
    return pull;
  }

  async updatePullRequest(number: number, update: { body?: string; title?: string }): Promise<void> {
    const pull = this.pulls.find((candidate) => candidate.number === number);
    if (pull) Object.assign(pull, update);
  }

  async createCheckRun(request: { name: string; headSha: string } & CheckRunUpdate) {
    const id = this.nextId++;
    this.checkRuns.push({ id, ...request });
    return { id, url: `https://github.com/${this.repository}/runs/${id}` };
  }

  async updateCheckRun(id: number, update: CheckRunUpdate): Promise<void> {
    this.checkRunUpdates.push({ id, update });
    const run = this.checkRuns.find((candidate) => candidate.id === id);
    if (run) Object.assign(run, update);
  }

  async failedJobs(): Promise<WorkflowJob[]> {
    return this.jobs;
  }

  async jobLog(jobId: number): Promise<Readable> {
    return Readable.from([this.logs.get(jobId) ?? '']);
  }

  async fileContent(path: string): Promise<string | null> {
    return this.files.get(path) ?? null;
  }

  commentsOn(issueNumber: number): string[] {
    return this.comments
      .filter((comment) => comment.issueNumber === issueNumber)
      .map((comment) => comment.body);
  }

  private posted(comment: Comment): PostedComment {
    return {
      id: comment.id,
      url: `https://github.com/${this.repository}/issues/${comment.issueNumber}#issuecomment-${comment.id}`,
    };
  }
}
