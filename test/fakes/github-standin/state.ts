/**
 * The stand-in's in-memory GitHub: repositories and what hangs off them.
 * Only what GitHub would know goes here; REST shapes are built from it on
 * each request (objects-*.ts), so an edit shows in every later response.
 */
import { RateLimits } from './rate-limit.js';

export type Role = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

/** Where the stand-in is reachable: the API root and the "web" root that html_url and clone URLs use. */
export interface Site {
  /** `127.0.0.1:PORT`, as GHE_HOST takes it. */
  host: string;
  /** `http://127.0.0.1:PORT/api/v3` */
  apiUrl: string;
  /** `http://127.0.0.1:PORT`, standing in for https://github.com. */
  webUrl: string;
}

export interface AppIdentity {
  id: number;
  slug: string;
  installationId: number;
  /** The login comments made with an installation token carry. */
  botLogin: string;
}

export interface IssueState {
  id: number;
  number: number;
  title: string;
  body: string;
  user: string;
  state: 'open' | 'closed';
  labels: string[];
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  /** Set when this number is a pull request: issues and pull requests share one sequence. */
  pull?: PullState;
}

export interface PullState {
  head: string;
  base: string;
  /** Refreshed from git on every read, and kept when the branch is gone. */
  headSha: string;
  baseSha: string;
  draft: boolean;
}

export interface CommentState {
  id: number;
  issueNumber: number;
  body: string;
  user: string;
  createdAt: string;
  updatedAt: string;
}

export interface ReactionState {
  id: number;
  /** `issue:7` or `comment:1234`. */
  target: string;
  content: string;
  user: string;
  createdAt: string;
}

export interface CheckRunState {
  id: number;
  name: string;
  headSha: string;
  status: string;
  conclusion: string | null;
  detailsUrl: string | null;
  externalId: string | null;
  startedAt: string;
  completedAt: string | null;
  output: { title?: string; summary?: string; text?: string; annotations: unknown[] };
}

export interface StepState {
  name: string;
  number: number;
  conclusion: 'success' | 'failure' | 'skipped' | null;
}

export interface JobState {
  id: number;
  runId: number;
  name: string;
  conclusion: 'failure' | 'success';
  steps: StepState[];
  log: Buffer;
  /** The runner that ran it: matrix jobs run on different runners at once. */
  runnerName?: string;
}

export interface WorkflowRunState {
  id: number;
  runNumber: number;
  workflowId: number;
  workflowName: string;
  path: string;
  headBranch: string;
  headSha: string;
  event: string;
  /** Still in progress: listed without a conclusion. */
  running: boolean;
  createdAt: string;
  jobs: JobState[];
}

/** Another app's check suite on a commit (a CI that reports through checks), as a test sets it. */
export interface CheckSuiteState {
  id: number;
  app: { slug: string; name: string };
  headBranch: string;
  headSha: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: string | null;
  /** How many check runs the app has added to it; 0 for a suite GitHub only opened. */
  checkRuns: number;
}

export interface ReviewCommentState {
  id: number;
  path: string;
  line: number;
  body: string;
}

export interface ReviewState {
  id: number;
  pullNumber: number;
  user: string;
  state: 'CHANGES_REQUESTED' | 'COMMENTED';
  body: string;
  commitId: string;
  submittedAt: string;
  comments: ReviewCommentState[];
}

export interface RepositoryState {
  id: number;
  owner: string;
  name: string;
  fullName: string;
  defaultBranch: string;
  createdAt: string;
  roles: Map<string, Role>;
  /** The last issue or pull request number handed out. */
  lastNumber: number;
  issues: Map<number, IssueState>;
  comments: CommentState[];
  reactions: ReactionState[];
  checkRuns: Map<number, CheckRunState>;
  runs: Map<number, WorkflowRunState>;
  /** Other apps' suites; GitHub Actions' and the App's own are made from the runs and check runs. */
  suites: Map<number, CheckSuiteState>;
  /** Other apps that may write checks here: GitHub opens a suite of each on every commit. */
  checkApps: { slug: string; name: string }[];
  reviews: ReviewState[];
}

export class StandinState {
  readonly repositories = new Map<string, RepositoryState>();
  /** Every installation token handed out, with when it stops working (epoch ms). */
  readonly tokens = new Map<string, number>();
  /** The same tokens in the order they were handed out, for tests that look for leaks. */
  readonly issuedTokens: string[] = [];
  /** Every request's path and query, and every API request's body, as received; for leak checks. */
  readonly received: string[] = [];
  /**
   * Operations (`POST /repos/{owner}/{repo}/check-runs`) an installation token
   * is refused, with the permissions GitHub would name as missing
   * (`checks=write`): an installation whose owner has not accepted them.
   */
  readonly withheld = new Map<string, string>();
  /** GitHub's primary rate limit, per credential; replace it to test what the App does near the limit. */
  rateLimits = new RateLimits();
  private readonly userIds = new Map<string, number>();
  // Ids come from one counter, so no two objects of any kind share one.
  private lastId = 1000;

  constructor(
    readonly site: Site,
    readonly app: AppIdentity,
  ) {}

  nextId(): number {
    this.lastId += 1;
    return this.lastId;
  }

  /** A stable id per login, as GitHub's user ids are. */
  userId(login: string): number {
    let id = this.userIds.get(login);
    if (id === undefined) {
      id = this.nextId();
      this.userIds.set(login, id);
    }
    return id;
  }

  /** GitHub's timestamps have no fractional seconds. */
  now(): string {
    return `${new Date().toISOString().slice(0, 19)}Z`;
  }

  repository(owner: string, name: string): RepositoryState | undefined {
    return this.repositories.get(`${owner}/${name}`.toLowerCase());
  }

  /** For the test-facing API, where a missing repository is a mistake in the test. */
  repositoryNamed(fullName: string): RepositoryState {
    const found = this.repositories.get(fullName.toLowerCase());
    if (found === undefined) throw new Error(`The stand-in has no repository ${fullName}; create it first.`);
    return found;
  }

  addRepository(owner: string, name: string, defaultBranch: string): RepositoryState {
    const fullName = `${owner}/${name}`;
    const repository: RepositoryState = {
      id: this.nextId(),
      owner,
      name,
      fullName,
      defaultBranch,
      createdAt: this.now(),
      roles: new Map(),
      lastNumber: 0,
      issues: new Map(),
      comments: [],
      reactions: [],
      checkRuns: new Map(),
      runs: new Map(),
      suites: new Map(),
      checkApps: [],
      reviews: [],
    };
    this.repositories.set(fullName.toLowerCase(), repository);
    return repository;
  }

  addIssue(
    repository: RepositoryState,
    issue: { title: string; body: string; user: string; pull?: PullState },
  ): IssueState {
    repository.lastNumber += 1;
    const now = this.now();
    const created: IssueState = {
      id: this.nextId(),
      number: repository.lastNumber,
      title: issue.title,
      body: issue.body,
      user: issue.user,
      state: 'open',
      labels: [],
      createdAt: now,
      updatedAt: now,
      closedAt: null,
      ...(issue.pull === undefined ? {} : { pull: issue.pull }),
    };
    repository.issues.set(created.number, created);
    return created;
  }

  addComment(repository: RepositoryState, issueNumber: number, body: string, user: string): CommentState {
    const now = this.now();
    const comment = { id: this.nextId(), issueNumber, body, user, createdAt: now, updatedAt: now };
    repository.comments.push(comment);
    return comment;
  }

  /** Job ids are unique across repositories, so the log URL needs only the id. */
  findJob(jobId: number): JobState | undefined {
    for (const repository of this.repositories.values()) {
      for (const run of repository.runs.values()) {
        const job = run.jobs.find((candidate) => candidate.id === jobId);
        if (job !== undefined) return job;
      }
    }
    return undefined;
  }
}
