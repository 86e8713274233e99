import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RestEndpointMethodTypes } from '@octokit/rest';
import { operationNamed, responseBodyProblems } from '../../helpers/openapi-operations.js';
import { ApiRouter } from './api-router.js';
import { UrlSigner } from './auth.js';
import { GitRepositories } from './git-repositories.js';
import { HttpFront, type RecordedRequest } from './http-front.js';
import { cloneUrlOf, repositoryObject } from './objects.js';
import { workflowRunObject } from './objects-checks.js';
import { commentObject, issueObject } from './objects-issues.js';
import { pullObject, reviewObject } from './objects-pulls.js';
import { RateLimits } from './rate-limit.js';
import type { World } from './route.js';
import { actionsRoutes } from './routes-actions.js';
import { appRoutes } from './routes-app.js';
import { checkRoutes } from './routes-checks.js';
import { ciRoutes } from './routes-ci.js';
import { issueRoutes } from './routes-issues.js';
import { pullRoutes } from './routes-pulls.js';
import { repositoryRoutes } from './routes-repos.js';
import { reviewRoutes } from './routes-reviews.js';
import { type CheckSuiteState, type Role, StandinState } from './state.js';

export type { RecordedRequest } from './http-front.js';

type Data<
  Group extends keyof RestEndpointMethodTypes,
  Method extends keyof RestEndpointMethodTypes[Group],
> = RestEndpointMethodTypes[Group][Method] extends { response: { data: infer T } } ? T : never;

/** REST-shaped objects, for building webhook payloads. */
export type IssueRecord = Data<'issues', 'get'>;
export type CommentRecord = Data<'issues', 'getComment'>;
export type WorkflowRunRecord = Data<'actions', 'getWorkflowRun'>;
export type ReviewRecord = Data<'pulls', 'getReview'>;
export type RepositoryRecord = Data<'repos', 'get'>;
export type PullRecord = Data<'pulls', 'get'>;

export interface StandinRepository {
  owner: string;
  name: string;
  fullName: string;
  cloneUrl: string;
  defaultBranch: string;
  id: number;
  /** The shas of the commits it was created with, oldest first; the default branch is at the last. */
  commits: string[];
}

export interface StandinWorkflowRun {
  workflowName: string;
  path: string;
  headBranch: string;
  headSha: string;
  event?: string;
  /** Still running (a run whose step is the Action itself): `in_progress`, no conclusion yet. */
  running?: boolean;
  jobs: {
    name: string;
    conclusion: 'failure' | 'success';
    steps: { name: string; number: number; conclusion: 'success' | 'failure' | 'skipped' | null }[];
    log: string | Buffer;
    /** Default "GitHub Actions 1". */
    runnerName?: string;
  }[];
}

export interface StandinReview {
  user: string;
  state: 'changes_requested' | 'commented';
  body: string;
  comments: { path: string; line: number; body: string }[];
}

const ROUTES = {
  ...appRoutes,
  ...repositoryRoutes,
  ...issueRoutes,
  ...checkRoutes,
  ...actionsRoutes,
  ...ciRoutes,
  ...pullRoutes,
  ...reviewRoutes,
};

/**
 * GitHub for end-to-end tests: the REST API the App calls and git over
 * HTTP, in memory, on 127.0.0.1. Point the App at it with
 * `GHE_HOST=<host> GHE_PROTOCOL=http`. Every request and response is
 * checked against GitHub's OpenAPI description; what does not fit lands in
 * `problems`, which a test should expect to be empty.
 */
export class GitHubStandin {
  readonly problems: string[] = [];
  readonly requests: RecordedRequest[] = [];
  /** Tokens handed out by POST /app/installations/{id}/access_tokens; tests assert none leaks into comments. */
  readonly issuedTokens: string[];
  readonly host: string;
  readonly apiUrl: string;
  readonly appId: number;
  readonly installationId: number;
  readonly appSlug: string;

  private constructor(
    readonly privateKey: string,
    private readonly world: World,
    private readonly server: Server,
  ) {
    const { site, app } = world.state;
    this.host = site.host;
    this.apiUrl = site.apiUrl;
    this.appId = app.id;
    this.installationId = app.installationId;
    this.appSlug = app.slug;
    this.issuedTokens = world.state.issuedTokens;
  }

  static async start(options: { appId?: number } = {}): Promise<GitHubStandin> {
    const { privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const git = await GitRepositories.start();
    let front: HttpFront | undefined;
    const server = createServer((request, response) => void front?.serve(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const host = `127.0.0.1:${port}`;
    const slug = 'selfdebug';
    const state = new StandinState(
      { host, apiUrl: `http://${host}/api/v3`, webUrl: `http://${host}` },
      { id: options.appId ?? 4321, slug, installationId: 77, botLogin: `${slug}[bot]` },
    );
    const world: World = { state, git, signer: new UrlSigner() };
    const standin = new GitHubStandin(privateKey, world, server);
    const record = (problem: string) => standin.problems.push(problem);
    const auth = { appId: state.app.id, publicKey: createPublicKey(privateKey) };
    front = new HttpFront(world, new ApiRouter(world, ROUTES, auth, record), standin.requests, record);
    return standin;
  }

  /** A repository whose default branch has one commit per file map (at least one). */
  async createRepository(
    owner: string,
    name: string,
    commits: Record<string, string | null>[],
    options: { defaultBranch?: string } = {},
  ): Promise<StandinRepository> {
    if (commits.length === 0) throw new Error('A stand-in repository needs at least one commit.');
    const defaultBranch = options.defaultBranch ?? 'main';
    const repository = this.world.state.addRepository(owner, name, defaultBranch);
    const shas = await this.world.git.create(repository.fullName, commits, defaultBranch);
    return {
      owner,
      name,
      fullName: repository.fullName,
      cloneUrl: cloneUrlOf(this.world.state.site, repository.fullName),
      defaultBranch,
      id: repository.id,
      commits: shas,
    };
  }

  /**
   * Refuses `operation` (`POST /repos/{owner}/{repo}/check-runs`) to the
   * installation with a 403 naming `acceptedPermissions` (`checks=write`),
   * as for an installation that has not accepted a new permission;
   * undefined gives the permission back.
   */
  withholdPermission(operation: string, acceptedPermissions: string | undefined): void {
    if (acceptedPermissions === undefined) this.world.state.withheld.delete(operation);
    else this.world.state.withheld.set(operation, acceptedPermissions);
  }

  setPermission(fullName: string, login: string, permission: Role): void {
    this.repository(fullName).roles.set(login, permission);
  }

  /** GitHub's primary rate limit from now on: `limit` requests an hour per credential (5,000 at start). */
  limitRequests(limit: number): void {
    this.world.state.rateLimits = new RateLimits(limit);
  }

  createIssue(fullName: string, issue: { title: string; body: string; user: string }): IssueRecord {
    const repository = this.repository(fullName);
    const created = this.world.state.addIssue(repository, issue);
    return this.documented<IssueRecord>(
      'GET /repos/{owner}/{repo}/issues/{issue_number}',
      issueObject(this.world.state, repository, created),
    );
  }

  /** A comment on an issue or pull request (they share numbers). */
  createIssueComment(
    fullName: string,
    issueNumber: number,
    comment: { body: string; user: string },
  ): CommentRecord {
    const repository = this.repository(fullName);
    if (!repository.issues.has(issueNumber))
      throw new Error(`${fullName} has no issue or pull request #${issueNumber}`);
    const created = this.world.state.addComment(repository, issueNumber, comment.body, comment.user);
    return this.documented<CommentRecord>(
      'GET /repos/{owner}/{repo}/issues/comments/{comment_id}',
      commentObject(this.world.state, repository, created),
    );
  }

  /** A finished workflow run with its jobs, steps and logs (log text served by the job-logs endpoint). */
  /** Installs another app that may write checks: from now on every commit has an empty suite of it. */
  installCheckApp(fullName: string, app: { slug: string; name: string }): void {
    this.repository(fullName).checkApps.push({ ...app });
  }

  /** Another app's check suite on a commit, added or replaced by id (its CI starting, running, ending). */
  setCheckSuite(fullName: string, suite: CheckSuiteState): void {
    this.repository(fullName).suites.set(suite.id, { ...suite });
  }

  createWorkflowRun(fullName: string, run: StandinWorkflowRun): WorkflowRunRecord {
    const repository = this.repository(fullName);
    const { state } = this.world;
    const sameWorkflow = [...repository.runs.values()].find((existing) => existing.path === run.path);
    const id = state.nextId();
    const created = {
      id,
      runNumber: repository.runs.size + 1,
      workflowId: sameWorkflow?.workflowId ?? state.nextId(),
      workflowName: run.workflowName,
      path: run.path,
      headBranch: run.headBranch,
      headSha: run.headSha,
      event: run.event ?? 'push',
      running: run.running ?? false,
      createdAt: state.now(),
      jobs: run.jobs.map((job) => ({
        id: state.nextId(),
        runId: id,
        name: job.name,
        conclusion: job.conclusion,
        steps: job.steps.map((step) => ({ ...step })),
        log: typeof job.log === 'string' ? Buffer.from(job.log, 'utf8') : job.log,
        ...(job.runnerName === undefined ? {} : { runnerName: job.runnerName }),
      })),
    };
    repository.runs.set(id, created);
    return this.documented<WorkflowRunRecord>(
      'GET /repos/{owner}/{repo}/actions/runs/{run_id}',
      workflowRunObject(state, repository, created),
    );
  }

  /** A submitted review on a pull request, with inline comments. */
  createReview(fullName: string, pullNumber: number, review: StandinReview): ReviewRecord {
    const repository = this.repository(fullName);
    const pull = repository.issues.get(pullNumber)?.pull;
    if (pull === undefined) throw new Error(`${fullName} has no pull request #${pullNumber}`);
    const { state } = this.world;
    const created = {
      id: state.nextId(),
      pullNumber,
      user: review.user,
      state: review.state === 'changes_requested' ? ('CHANGES_REQUESTED' as const) : ('COMMENTED' as const),
      body: review.body,
      commitId: pull.headSha,
      submittedAt: state.now(),
      comments: review.comments.map((comment) => ({ id: state.nextId(), ...comment })),
    };
    repository.reviews.push(created);
    return this.documented<ReviewRecord>(
      'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}',
      reviewObject(state, repository, created),
    );
  }

  /** The repository as the REST API shows it, for webhook payloads' `repository`. */
  repositoryRecord(fullName: string): RepositoryRecord {
    return this.documented<RepositoryRecord>(
      'GET /repos/{owner}/{repo}',
      repositoryObject(this.world.state, this.repository(fullName)),
    );
  }

  /** A pull request as the REST API shows it now, for webhook payloads' `pull_request`. */
  async pullRecord(fullName: string, pullNumber: number): Promise<PullRecord> {
    const repository = this.repository(fullName);
    const issue = repository.issues.get(pullNumber);
    const pull = issue?.pull;
    if (issue === undefined || pull === undefined)
      throw new Error(`${fullName} has no pull request #${pullNumber}`);
    pull.headSha = (await this.world.git.branchSha(repository.fullName, pull.head)) ?? pull.headSha;
    return this.documented<PullRecord>(
      'GET /repos/{owner}/{repo}/pulls/{pull_number}',
      pullObject(this.world.state, repository, { ...issue, pull }, 'full'),
    );
  }

  comments(fullName: string, issueNumber: number) {
    return this.repository(fullName)
      .comments.filter((comment) => comment.issueNumber === issueNumber)
      .map(({ id, body, user, createdAt, updatedAt }) => ({ id, body, user, createdAt, updatedAt }));
  }

  reactions(fullName: string) {
    return this.repository(fullName).reactions.map(({ target, content, user }) => ({
      target,
      content,
      user,
    }));
  }

  pulls(fullName: string) {
    return [...this.repository(fullName).issues.values()].flatMap((issue) =>
      issue.pull === undefined
        ? []
        : [
            {
              number: issue.number,
              head: issue.pull.head,
              base: issue.pull.base,
              title: issue.title,
              body: issue.body,
              draft: issue.pull.draft,
              state: issue.state,
              labels: [...issue.labels],
            },
          ],
    );
  }

  checkRuns(fullName: string) {
    return [...this.repository(fullName).checkRuns.values()].map((run) => ({
      id: run.id,
      name: run.name,
      headSha: run.headSha,
      status: run.status,
      conclusion: run.conclusion,
      output: { ...run.output, annotations: [...run.output.annotations] },
    }));
  }

  branchSha(fullName: string, branch: string): Promise<string | null> {
    return this.world.git.branchSha(this.repository(fullName).fullName, branch);
  }

  /** Creates (or moves) `branch` at `sha` without a client pushing it. */
  createBranch(fullName: string, branch: string, sha: string): Promise<void> {
    return this.world.git.createBranch(this.repository(fullName).fullName, branch, sha);
  }

  /** The repository's branch names, sorted. */
  branches(fullName: string): Promise<string[]> {
    return this.world.git.branches(this.repository(fullName).fullName);
  }

  /**
   * Everything clients sent: each request's path and query and each API
   * request's body (comments, pull requests, check runs, …) as received.
   * Authorization headers are left out; they carry tokens by design.
   */
  listAllText(): string[] {
    return [...this.world.state.received];
  }

  readFile(fullName: string, ref: string, path: string): Promise<string> {
    return this.world.git.readFile(this.repository(fullName).fullName, ref, path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.world.git.close();
  }

  private repository(fullName: string) {
    return this.world.state.repositoryNamed(fullName);
  }

  /**
   * Objects handed to tests are checked like responses: a webhook payload
   * built from them should be as GitHub would send it.
   */
  private documented<T>(operation: string, value: unknown): T {
    const problems = responseBodyProblems(
      operationNamed(operation),
      operation.startsWith('POST') ? 201 : 200,
      value,
    );
    for (const problem of problems) this.problems.push(`a record shaped as ${operation}: ${problem}`);
    return value as T;
  }
}
