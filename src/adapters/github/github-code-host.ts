import type { Readable } from 'node:stream';
import type {
  ActionCodeHost,
  CheckRunUpdate,
  Permission,
  PostedComment,
  PullRequestDetails,
  PullRequestFile,
  PullRequestRef,
  Reaction,
  RunJob,
  SuggestionReview,
  WorkflowJob,
} from '../../code-host/code-host.js';
import { GitHubNotFoundError } from '../../errors/index.js';
import { reconnectingFetch } from '../http/reconnecting-fetch.js';
import { checkRunRequests, type GitHubCheckOutput } from './check-run-payload.js';
import type { GitHubCredential } from './credential-advice.js';
import { readFileContent } from './file-content.js';
import { streamJobLog } from './job-log.js';
import type { GitHubOctokit } from './octokit.js';
import { toPermission } from './permission.js';
import { readRepoConfigFile } from './repo-config-file.js';
import { listFailureAnnotations, listRunJobs } from './run-jobs.js';
import { postSuggestionReview } from './suggestion-review.js';
import { useTypedErrors } from './typed-errors-octokit.js';

export interface GitHubCodeHostOptions {
  owner: string;
  repo: string;
  /** Stamps `completed_at` on check runs; a fixed clock in tests. */
  now?: () => Date;
  /** Downloads job logs from the storage host; it never receives the GitHub token. */
  fetch?: typeof globalThis.fetch;
  /** Whose token the Octokit carries, for the advice in GitHub's mapped errors; the App's installation unless said. */
  credential?: GitHubCredential;
}

const PAGE_SIZE = 100;

/**
 * CodeHost over Octokit for one repository. The constructor hooks the Octokit
 * (useTypedErrors) so every request it sends fails with our typed errors: the
 * job runner and the Action only ever see those.
 */
export class GitHubCodeHost implements ActionCodeHost {
  private readonly owner: string;
  private readonly repo: string;
  private readonly now: () => Date;
  private readonly fetch: typeof globalThis.fetch;

  constructor(
    protected readonly octokit: GitHubOctokit,
    options: GitHubCodeHostOptions,
  ) {
    useTypedErrors(octokit, options.credential);
    this.owner = options.owner;
    this.repo = options.repo;
    this.now = options.now ?? (() => new Date());
    this.fetch = options.fetch ?? reconnectingFetch();
  }

  protected get repository() {
    return { owner: this.owner, repo: this.repo };
  }

  private get fullName(): string {
    return `${this.owner}/${this.repo}`;
  }

  async upsertComment(issueNumber: number, marker: string, body: string): Promise<PostedComment> {
    // Found by marker alone: the App's login follows its slug (renamed or
    // self-hosted Apps differ), and a login cannot tell our status comment
    // from our attempt comments anyway.
    const existing = await this.findComment(issueNumber, marker);
    if (existing === undefined) return this.createComment(issueNumber, body);
    const { data } = await this.octokit.rest.issues.updateComment({
      ...this.repository,
      comment_id: existing,
      body,
    });
    return { id: data.id, url: data.html_url };
  }

  private async findComment(issueNumber: number, marker: string): Promise<number | undefined> {
    const pages = this.octokit.paginate.iterator(this.octokit.rest.issues.listComments, {
      ...this.repository,
      issue_number: issueNumber,
      per_page: PAGE_SIZE,
    });
    for await (const page of pages) {
      const found = page.data.find((comment) => comment.body?.includes(marker));
      if (found !== undefined) return found.id;
    }
    return undefined;
  }

  async createComment(issueNumber: number, body: string): Promise<PostedComment> {
    const { data } = await this.octokit.rest.issues.createComment({
      ...this.repository,
      issue_number: issueNumber,
      body,
    });
    return { id: data.id, url: data.html_url };
  }

  /** `commentId` is an issue (or pull request conversation) comment, as webhooks for mentions carry. */
  async react(target: { issueNumber: number } | { commentId: number }, reaction: Reaction): Promise<void> {
    if ('issueNumber' in target) {
      await this.octokit.rest.reactions.createForIssue({
        ...this.repository,
        issue_number: target.issueNumber,
        content: reaction,
      });
      return;
    }
    await this.octokit.rest.reactions.createForIssueComment({
      ...this.repository,
      comment_id: target.commentId,
      content: reaction,
    });
  }

  async permissionOf(login: string): Promise<Permission> {
    try {
      const { data } = await this.octokit.rest.repos.getCollaboratorPermissionLevel({
        ...this.repository,
        username: login,
      });
      return toPermission(data.role_name, data.permission);
    } catch (error) {
      // 404: not a collaborator (or no such user); either way, no permission.
      if (error instanceof GitHubNotFoundError) return 'none';
      throw error;
    }
  }

  async branchHead(branch: string): Promise<string> {
    const { data } = await this.octokit.rest.repos.getBranch({ ...this.repository, branch });
    return data.commit.sha;
  }

  async pullRequest(number: number): Promise<PullRequestDetails> {
    const { data } = await this.octokit.rest.pulls.get({ ...this.repository, pull_number: number });
    const headRepository = data.head.repo?.full_name;
    if (headRepository === undefined) {
      throw new GitHubNotFoundError(
        `The head repository of pull request #${number} of ${this.fullName} no longer exists (its fork was ` +
          'deleted), so selfdebug cannot read or push its branch. Open the pull request again from a fork that exists.',
      );
    }
    return {
      number: data.number,
      url: data.html_url,
      head: data.head.ref,
      draft: data.draft ?? false,
      headSha: data.head.sha,
      headRepository,
      base: data.base.ref,
    };
  }

  async reviewComments(
    pullNumber: number,
    reviewId: number,
  ): Promise<{ path: string; line: number | null; body: string }[]> {
    const comments = await this.octokit.paginate(this.octokit.rest.pulls.listCommentsForReview, {
      ...this.repository,
      pull_number: pullNumber,
      review_id: reviewId,
      per_page: PAGE_SIZE,
    });
    // `line` is null once the commented line is outdated; `original_line` still says where it was.
    return comments.map((comment) => ({
      path: comment.path,
      line: comment.line ?? comment.original_line ?? null,
      body: comment.body,
    }));
  }

  async addLabels(issueNumber: number, labels: string[]): Promise<void> {
    if (labels.length === 0) return;
    await this.octokit.rest.issues.addLabels({ ...this.repository, issue_number: issueNumber, labels });
  }

  repoConfigFile(): Promise<unknown> {
    return readRepoConfigFile(this.octokit, this.repository);
  }

  async findPullRequest(head: string): Promise<PullRequestRef | null> {
    const found = (await this.openPulls(this.owner, head))[0];
    if (found === undefined) return null;
    return { number: found.number, url: found.html_url, head: found.head.ref, draft: found.draft ?? false };
  }

  async createPullRequest(request: {
    title: string;
    body: string;
    head: string;
    base: string;
    draft: boolean;
  }): Promise<PullRequestRef> {
    const { data } = await this.octokit.rest.pulls.create({ ...this.repository, ...request });
    return { number: data.number, url: data.html_url, head: data.head.ref, draft: data.draft ?? false };
  }

  async updatePullRequest(number: number, update: { body?: string; title?: string }): Promise<void> {
    await this.octokit.rest.pulls.update({
      ...this.repository,
      pull_number: number,
      ...(update.title === undefined ? {} : { title: update.title }),
      ...(update.body === undefined ? {} : { body: update.body }),
    });
  }

  async createCheckRun(
    request: { name: string; headSha: string } & CheckRunUpdate,
  ): Promise<{ id: number; url: string }> {
    const { first, followUps } = checkRunRequests(request, this.now);
    const { data } = await this.octokit.rest.checks.create({
      ...this.repository,
      name: request.name,
      head_sha: request.headSha,
      ...first,
    });
    await this.addAnnotations(data.id, followUps);
    return { id: data.id, url: data.html_url ?? data.url };
  }

  async updateCheckRun(id: number, update: CheckRunUpdate): Promise<void> {
    const { first, followUps } = checkRunRequests(update, this.now);
    await this.octokit.rest.checks.update({ ...this.repository, check_run_id: id, ...first });
    await this.addAnnotations(id, followUps);
  }

  /** GitHub appends annotations on each update, so the rest go in batches after the first request. */
  private async addAnnotations(id: number, outputs: GitHubCheckOutput[]): Promise<void> {
    for (const output of outputs) {
      await this.octokit.rest.checks.update({ ...this.repository, check_run_id: id, output });
    }
  }

  async failedJobs(runId: number): Promise<WorkflowJob[]> {
    const jobs = await listRunJobs(this.octokit, this.repository, runId, PAGE_SIZE);
    return jobs
      .filter((job) => job.conclusion === 'failure')
      .map(({ id, name, conclusion, steps }) => ({ id, name, conclusion, steps }));
  }

  jobLog(jobId: number): Promise<Readable> {
    return streamJobLog(this.octokit, { ...this.repository, jobId, fetch: this.fetch });
  }

  /** A job is a check run too: its id names both. */
  jobFailureAnnotations(jobId: number): Promise<string[]> {
    return listFailureAnnotations(this.octokit, this.repository, jobId);
  }

  async rerunFailedJobs(runId: number): Promise<void> {
    await this.octokit.rest.actions.reRunWorkflowFailedJobs({ ...this.repository, run_id: runId });
  }

  /** Null for a path that is missing, or that is a directory, submodule or dangling symlink. */
  fileContent(path: string, ref: string): Promise<string | null> {
    return readFileContent(this.octokit, this.repository, path, ref);
  }

  async workflowRun(runId: number): Promise<{ path: string; jobs: RunJob[] }> {
    const { data } = await this.octokit.rest.actions.getWorkflowRun({ ...this.repository, run_id: runId });
    return { path: data.path, jobs: await listRunJobs(this.octokit, this.repository, runId, PAGE_SIZE) };
  }

  async openPullRequestsFrom(
    owner: string,
    branch: string,
  ): Promise<{ number: number; headSha: string; base: string }[]> {
    const pulls = await this.openPulls(owner, branch);
    return pulls.map((pull) => ({ number: pull.number, headSha: pull.head.sha, base: pull.base.ref }));
  }

  private async openPulls(owner: string, branch: string) {
    const head = `${owner}:${branch}`;
    return (await this.octokit.rest.pulls.list({ ...this.repository, state: 'open', head })).data;
  }

  async pullRequestFiles(pullNumber: number): Promise<PullRequestFile[]> {
    const files = await this.octokit.paginate(this.octokit.rest.pulls.listFiles, {
      ...this.repository,
      pull_number: pullNumber,
      per_page: PAGE_SIZE,
    });
    return files.map((file) => ({ filename: file.filename, patch: file.patch }));
  }

  suggestionReview(review: SuggestionReview): Promise<{ url: string; inline: boolean }> {
    return postSuggestionReview(this.octokit, this.repository, review);
  }
}
