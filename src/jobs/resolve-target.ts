import type { CodeHost } from '../code-host/code-host.js';
import { JobRefusedError } from '../errors/index.js';
import { type JobRequest, repositoryKey } from '../queue/job-request.js';
import { BRANCH_PREFIX, isOwnBranch } from '../workspace/selfdebug-branches.js';

/** Where a job reads, where its fix goes, and where it reports. */
export interface JobTarget {
  headSha: string;
  /** Branch the commit is fetched from. */
  ref: string;
  /** The branch the fix is pushed to; always under `selfdebug/`. */
  workBranch: string;
  /** True when the work branch already exists (a PR the App opened): commits go on top. */
  ownBranch: boolean;
  /** Base of the pull request. */
  baseBranch: string;
  existingPull: number | null;
  /** The issue or pull request that gets comments, if any yet: the job's ReportTarget, worked out once. */
  reportTo: number | null;
}

/**
 * Turns a request into concrete commits and branches, asking GitHub what
 * the webhook did not say (an issue mention does not name a commit; a
 * comment on a PR does not carry the PR's head). `reportTo` is the job's,
 * passed through for the delivery.
 */
export async function resolveTarget(
  request: JobRequest,
  host: CodeHost,
  reportTo: number | null,
): Promise<JobTarget> {
  const short = request.id
    .replace(/[^a-z0-9]/gi, '')
    .slice(0, 8)
    .toLowerCase();
  const { trigger } = request;
  if (trigger.kind === 'mention' && !trigger.isPullRequest) {
    const base = request.baseBranch;
    return {
      headSha: request.headSha ?? (await host.branchHead(base)),
      ref: base,
      workBranch: `${BRANCH_PREFIX}issue-${trigger.issueNumber}-${short}`,
      ownBranch: false,
      baseBranch: base,
      existingPull: null,
      reportTo,
    };
  }
  if (trigger.kind === 'mention')
    return { ...(await pullTarget(request, host, trigger.issueNumber, short)), reportTo };
  if (trigger.kind === 'review') {
    return {
      headSha: request.headSha ?? (await host.branchHead(trigger.branch)),
      ref: trigger.branch,
      workBranch: trigger.branch,
      ownBranch: true,
      baseBranch: request.baseBranch,
      existingPull: trigger.pullNumber,
      reportTo,
    };
  }
  return { ...(await runTarget(request, host, trigger, short)), reportTo };
}

/** A mention on a pull request: its head, refused from a fork; the App's own branch gets the fix on top. */
async function pullTarget(
  request: JobRequest,
  host: CodeHost,
  number: number,
  short: string,
): Promise<Omit<JobTarget, 'reportTo'>> {
  const pull = await host.pullRequest(number);
  if (pull.headRepository.toLowerCase() !== repositoryKey(request.repository)) {
    throw new JobRefusedError(
      'This pull request comes from a fork. selfdebug does not run code from forks near its credentials and ' +
        'cannot push to a fork; push the branch to this repository and ask again there.',
    );
  }
  const own = isOwnBranch(pull.head);
  return {
    headSha: pull.headSha,
    ref: pull.head,
    workBranch: own ? pull.head : `${BRANCH_PREFIX}pr-${pull.number}-${short}`,
    ownBranch: own,
    baseBranch: own ? pull.base : pull.head,
    existingPull: own ? pull.number : null,
  };
}

/** A failed run: its branch; on the App's own branch the fix goes on top of its pull request. */
async function runTarget(
  request: JobRequest,
  host: CodeHost,
  trigger: Extract<JobRequest['trigger'], { kind: 'workflow-run' }>,
  short: string,
): Promise<Omit<JobTarget, 'reportTo'>> {
  const own = isOwnBranch(trigger.branch);
  return {
    headSha: request.headSha ?? (await host.branchHead(trigger.branch)),
    ref: trigger.branch,
    workBranch: own ? trigger.branch : `${BRANCH_PREFIX}run-${trigger.runId}-${short}`,
    ownBranch: own,
    baseBranch: trigger.branch,
    existingPull: own ? trigger.ownPullRequest : null,
  };
}
