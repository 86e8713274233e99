import { JobRefusedError } from '../errors/index.js';
import type { DebugTask } from '../loop/task.js';
import { BRANCH_PREFIX } from '../workspace/selfdebug-branches.js';
import type { TriggerModule } from './trigger-module.js';
import { describeFailedRun } from './workflow-run.js';

/** The GitHub Action, started in (or after) a workflow run that failed. */
export interface ActionRunTrigger {
  kind: 'action-run';
  runId: number;
  runAttempt: number;
  workflowName: string;
  /** The branch the failure is on: the pull request's head for a pull_request run. */
  branch: string;
}

/** The trigger of the failed run the Action answers, from what the event says of it. */
export function actionRunTrigger(run: Omit<ActionRunTrigger, 'kind'>): ActionRunTrigger {
  const { runId, runAttempt, workflowName, branch } = run;
  return { kind: 'action-run', runId, runAttempt, workflowName, branch };
}

/** A branch named after the run, so a re-run of the same attempt finds its own. */
export function actionRunBranch(trigger: ActionRunTrigger): string {
  return `${BRANCH_PREFIX}run-${trigger.runId}-${trigger.runAttempt}`;
}

/** What the model is told of the failed run's command. */
export function actionRunTask(trigger: ActionRunTrigger, command: string): DebugTask {
  return { description: `The command \`${command}\` fails in ${trigger.workflowName}.`, command };
}

export const actionRun: TriggerModule<ActionRunTrigger> = {
  kind: 'action-run',
  issueNumber: () => null,
  serialKey: (trigger) => `branch:${trigger.branch}`,
  branch: (trigger) => trigger.branch,
  loopMode: () => 'fix',
  // A branch named after the run, so a re-run of the same attempt finds its own.
  target: async ({ trigger, headSha }, host) => ({
    headSha: headSha ?? (await host.branchHead(trigger.branch)),
    ref: trigger.branch,
    workBranch: actionRunBranch(trigger),
    ownBranch: false,
    baseBranch: trigger.branch,
    existingPull: null,
  }),
  // The Action found the command (its input, the configuration's, or the failed step's) before it asks.
  async task({ trigger }, _host, { command, setupCommands }) {
    if (command === undefined) {
      throw new JobRefusedError(`No command to debug for the failed run of ${trigger.workflowName}.`);
    }
    return {
      task: { ...actionRunTask(trigger, command), setupCommands },
      scripts: [],
    };
  },
  // Every fix the Action makes answers a failed run: an automatic round on its branch.
  automatic: true,
  describe: (trigger, _requestedBy, md) => describeFailedRun(trigger, md),
  issueToClose: () => null,
};
