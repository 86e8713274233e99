import { createHash } from 'node:crypto';
import type { CheckRunUpdate, CodeHost, PostedComment } from '../code-host/code-host.js';
import { BranchMovedError } from '../errors/git-errors.js';
import type { LeaseGuard } from '../queue/lease-guard.js';
import type { OpenSandboxRequest, Sandbox, SandboxProvider } from '../sandbox/sandbox.js';
import type { Logger } from '../util/logger.js';
import type { CheckoutRequest, Workspace, WorkspaceProvider } from '../workspace/workspace.js';

/**
 * The ports a job runs with, wrapped so that a job taken over after a crash
 * acts once: every write to GitHub and every push first checks the lease;
 * the writes that are not found again by a marker or a branch (a check run,
 * a plain comment, a push) are recorded as checkpoints, and a later run of
 * the same job reuses them instead of doing them again. Every guarded method
 * is async, so a refused write rejects like a failed request.
 */
export class GuardedCodeHost implements CodeHost {
  constructor(
    private readonly host: CodeHost,
    private readonly guard: LeaseGuard,
  ) {}

  async upsertComment(issueNumber: number, marker: string, body: string): Promise<PostedComment> {
    this.guard.assertHeld();
    return this.host.upsertComment(issueNumber, marker, body);
  }

  async createComment(issueNumber: number, body: string): Promise<PostedComment> {
    const key = `comment:${issueNumber}:${createHash('sha256').update(body).digest('hex').slice(0, 16)}`;
    const earlier = this.guard.earlier(key);
    if (earlier !== undefined) return JSON.parse(earlier) as PostedComment;
    this.guard.assertHeld();
    const posted = await this.host.createComment(issueNumber, body);
    await this.guard.checkpoint(key, JSON.stringify(posted));
    return posted;
  }

  async react(...args: Parameters<CodeHost['react']>) {
    this.guard.assertHeld();
    return this.host.react(...args);
  }

  permissionOf(login: string) {
    return this.host.permissionOf(login);
  }

  branchHead(branch: string) {
    return this.host.branchHead(branch);
  }

  pullRequest(number: number) {
    return this.host.pullRequest(number);
  }

  reviewComments(pullNumber: number, reviewId: number) {
    return this.host.reviewComments(pullNumber, reviewId);
  }

  async addLabels(issueNumber: number, labels: string[]) {
    this.guard.assertHeld();
    return this.host.addLabels(issueNumber, labels);
  }

  repoConfigFile() {
    return this.host.repoConfigFile();
  }

  findPullRequest(head: string) {
    return this.host.findPullRequest(head);
  }

  async createPullRequest(request: Parameters<CodeHost['createPullRequest']>[0]) {
    this.guard.assertHeld();
    return this.host.createPullRequest(request);
  }

  async updatePullRequest(number: number, update: { body?: string; title?: string }) {
    this.guard.assertHeld();
    return this.host.updatePullRequest(number, update);
  }

  async createCheckRun(request: { name: string; headSha: string } & CheckRunUpdate) {
    const key = `check-run:${request.name}:${request.headSha}`;
    const earlier = this.guard.earlier(key);
    this.guard.assertHeld();
    if (earlier !== undefined) {
      // The check run an earlier run of this job opened is brought up to date rather than doubled.
      const run = JSON.parse(earlier) as { id: number; url: string };
      const { name: _name, headSha: _headSha, ...update } = request;
      await this.host.updateCheckRun(run.id, update);
      return run;
    }
    const run = await this.host.createCheckRun(request);
    await this.guard.checkpoint(key, JSON.stringify(run));
    return run;
  }

  async updateCheckRun(id: number, update: CheckRunUpdate) {
    this.guard.assertHeld();
    return this.host.updateCheckRun(id, update);
  }

  failedJobs(runId: number) {
    return this.host.failedJobs(runId);
  }

  jobLog(jobId: number) {
    return this.host.jobLog(jobId);
  }

  fileContent(path: string, ref: string) {
    return this.host.fileContent(path, ref);
  }
}

/** Checkouts whose push is fenced by the lease and resumable after a crash. */
export class ResumableWorkspaces implements WorkspaceProvider {
  constructor(
    private readonly provider: WorkspaceProvider,
    private readonly guard: LeaseGuard,
    private readonly logger: Logger,
  ) {}

  async checkout(request: CheckoutRequest): Promise<Workspace> {
    const workspace = await this.provider.checkout(request);
    const { guard, logger } = this;
    return {
      dir: workspace.dir,
      createBranch: (branch) => workspace.createBranch(branch),
      commit: (message, author, paths) => workspace.commit(message, author, paths),
      countCommits: (trailer) => workspace.countCommits(trailer),
      dispose: () => workspace.dispose(),
      async push(branch, token) {
        const key = `push:${branch}`;
        const pushedBefore = guard.earlier(key) !== undefined;
        // Recorded before pushing: after a crash right behind the push, the branch is known to be this job's.
        await guard.checkpoint(key, 'started');
        try {
          await workspace.push(branch, token);
        } catch (error) {
          // An earlier run of this job pushed its (verified) fix here and died before the pull request;
          // selfdebug never force-pushes, so that fix stays and the pull request is opened for it.
          if (!(pushedBefore && error instanceof BranchMovedError)) throw error;
          logger.info({ job: guard.job.request.id, branch }, 'keeping the branch an earlier run pushed');
        }
      },
    };
  }
}

/** Opens sandboxes only with a container slot, given back when the sandbox is removed. */
export class SlottedSandboxProvider implements SandboxProvider {
  constructor(
    private readonly provider: SandboxProvider,
    private readonly guard: LeaseGuard,
  ) {}

  get kind() {
    return this.provider.kind;
  }

  async open(request: OpenSandboxRequest): Promise<Sandbox> {
    const release = await this.guard.containerSlot(request.signal);
    let sandbox: Sandbox;
    try {
      sandbox = await this.provider.open(request);
    } catch (error) {
      await release();
      throw error;
    }
    return new SlottedSandbox(sandbox, release);
  }
}

/** A sandbox that gives its container slot back once it is removed. */
class SlottedSandbox implements Sandbox {
  readonly kind: Sandbox['kind'];
  readonly id: string;
  readonly workdir: string;
  readonly preparation: Sandbox['preparation'];

  constructor(
    private readonly sandbox: Sandbox,
    private readonly release: () => Promise<void>,
  ) {
    this.kind = sandbox.kind;
    this.id = sandbox.id;
    this.workdir = sandbox.workdir;
    this.preparation = sandbox.preparation;
  }

  exec(...args: Parameters<Sandbox['exec']>) {
    return this.sandbox.exec(...args);
  }

  readFile(path: string) {
    return this.sandbox.readFile(path);
  }

  writeFile(...args: Parameters<Sandbox['writeFile']>) {
    return this.sandbox.writeFile(...args);
  }

  copyIn(hostDir: string) {
    return this.sandbox.copyIn(hostDir);
  }

  copyOut(hostDir: string) {
    return this.sandbox.copyOut(hostDir);
  }

  async dispose(): Promise<void> {
    try {
      await this.sandbox.dispose();
    } finally {
      await this.release();
    }
  }
}
