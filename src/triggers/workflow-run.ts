import type { CodeHost } from '../code-host/code-host.js';
import { BRANCH_PREFIX, isOwnBranch } from '../workspace/selfdebug-branches.js';
import {
  shortJobId,
  type TriggerModule,
  type TriggerRequest,
  type TriggerTarget,
  type TriggerWriter,
} from './trigger-module.js';
import { workflowRunTask } from './workflow-run-task.js';

/** A workflow run that failed on a branch of the repository. */
export interface WorkflowRunTrigger {
  kind: 'workflow-run';
  runId: number;
  runAttempt: number;
  workflowName: string;
  workflowPath: string;
  /** The run's head branch: where the fix goes (as a PR against it, or on it when the App owns it). */
  branch: string;
  /** Set when the branch is one of the App's own, to cap automatic rounds. */
  ownPullRequest: number | null;
}

export const workflowRun: TriggerModule<WorkflowRunTrigger> = {
  kind: 'workflow-run',
  issueNumber: (trigger) => trigger.ownPullRequest,
  serialKey: (trigger) => `branch:${trigger.branch}`,
  branch: (trigger) => trigger.branch,
  loopMode: () => 'fix',
  target: runTarget,
  task: workflowRunTask,
  automatic: true,
  describe: (trigger, _requestedBy, md) => describeFailedRun(trigger, md),
  issueToClose: () => null,
};

/** A failed run, as the App's job and the Action name it. */
export function describeFailedRun(
  run: { workflowName: string; branch: string; runId: number; runAttempt: number },
  md: TriggerWriter,
): string {
  return (
    `Workflow ${md.code(run.workflowName, 100)} failed on ${md.code(run.branch, 100)} ` +
    `(run ${run.runId}, attempt ${run.runAttempt})`
  );
}

/** Its branch; on the App's own branch the fix goes on top of its pull request. */
async function runTarget(
  request: TriggerRequest<WorkflowRunTrigger>,
  host: CodeHost,
): Promise<TriggerTarget> {
  const { trigger } = request;
  const own = isOwnBranch(trigger.branch);
  return {
    headSha: request.headSha ?? (await host.branchHead(trigger.branch)),
    ref: trigger.branch,
    workBranch: own ? trigger.branch : `${BRANCH_PREFIX}run-${trigger.runId}-${shortJobId(request.id)}`,
    ownBranch: own,
    baseBranch: trigger.branch,
    existingPull: own ? trigger.ownPullRequest : null,
  };
}
