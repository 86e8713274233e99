import { createHash } from 'node:crypto';
import type { CodeHost, PostedComment } from '../code-host/code-host.js';
import { BranchMovedError } from '../errors/index.js';
import type { LeaseGuard } from '../queue/lease-guard.js';
import type { Sandbox, SandboxProvider } from '../sandbox/sandbox.js';
import { before, forwarding } from '../util/forwarding.js';
import type { Logger } from '../util/logger.js';
import type { Workspace, WorkspaceProvider } from '../workspace/workspace.js';

/** The writes to GitHub that are found again by a marker, or need no finding: fenced by the lease, nothing more. */
const FENCED_WRITES = [
  'upsertComment',
  'react',
  'addLabels',
  'createPullRequest',
  'updatePullRequest',
  'updateCheckRun',
] as const;

/**
 * The ports a job runs with, wrapped so that a job taken over after a crash
 * acts once: every write to GitHub and every push first checks the lease;
 * the writes that are not found again by a marker or a branch (a check run,
 * a plain comment, a push) are recorded as checkpoints, and a later run of
 * the same job reuses them instead of doing them again. Every guarded method
 * is async, so a refused write rejects like a failed request. Reads pass
 * straight through.
 */
export function guardCodeHost(host: CodeHost, guard: LeaseGuard): CodeHost {
  return forwarding(host, {
    ...before(host, FENCED_WRITES, () => guard.assertHeld()),
    async createComment(issueNumber, body) {
      const key = `comment:${issueNumber}:${createHash('sha256').update(body).digest('hex').slice(0, 16)}`;
      const earlier = guard.earlier(key);
      if (earlier !== undefined) return JSON.parse(earlier) as PostedComment;
      guard.assertHeld();
      const posted = await host.createComment(issueNumber, body);
      await guard.checkpoint(key, JSON.stringify(posted));
      return posted;
    },
    async createCheckRun(request) {
      const key = `check-run:${request.name}:${request.headSha}`;
      const earlier = guard.earlier(key);
      guard.assertHeld();
      if (earlier !== undefined) {
        // The check run an earlier run of this job opened is brought up to date rather than doubled.
        const run = JSON.parse(earlier) as { id: number; url: string };
        const { name: _name, headSha: _headSha, ...update } = request;
        await host.updateCheckRun(run.id, update);
        return run;
      }
      const run = await host.createCheckRun(request);
      await guard.checkpoint(key, JSON.stringify(run));
      return run;
    },
  });
}

/** Checkouts whose push is fenced by the lease and resumable after a crash. */
export function resumableWorkspaces(
  provider: WorkspaceProvider,
  guard: LeaseGuard,
  logger: Logger,
): WorkspaceProvider {
  return forwarding(provider, {
    async checkout(request) {
      return resumablePush(await provider.checkout(request), guard, logger);
    },
  });
}

function resumablePush(workspace: Workspace, guard: LeaseGuard, logger: Logger): Workspace {
  return forwarding(workspace, {
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
  });
}

/** Opens sandboxes only with a container slot, given back when the sandbox is removed. */
export function slottedSandboxes(provider: SandboxProvider, guard: LeaseGuard): SandboxProvider {
  return forwarding(provider, {
    async open(request) {
      const release = await guard.containerSlot(request.signal);
      let sandbox: Sandbox;
      try {
        sandbox = await provider.open(request);
      } catch (error) {
        await release();
        throw error;
      }
      return forwarding(sandbox, {
        async dispose() {
          try {
            await sandbox.dispose();
          } finally {
            await release();
          }
        },
      });
    },
  });
}
