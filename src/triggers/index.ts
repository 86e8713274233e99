import { actionRun } from './action-run.js';
import { mention } from './mention.js';
import { review } from './review.js';
import { createTriggerRegistry, type TriggerOf } from './trigger-registry.js';
import { workflowRun } from './workflow-run.js';

/** Every trigger kind selfdebug knows: a new kind is a module and one line here. */
export const BUILTIN_TRIGGERS = [mention, workflowRun, review, actionRun] as const;

/** What started a job, as queued and as reported: one kind's data. */
export type Trigger = TriggerOf<(typeof BUILTIN_TRIGGERS)[number]>;

/** The registry the queue, the runner, the reports and the Action ask. */
export const triggers = createTriggerRegistry(BUILTIN_TRIGGERS);

export { actionRunBranch, actionRunTask, actionRunTrigger } from './action-run.js';
export { type InfraFailureNotice, NotTheCodeError, type RerunOutcome } from './infra-failure-run.js';
export type { ScriptBlock } from './mention.js';
export type {
  LoopMode,
  PreparedTask,
  TriggerModule,
  TriggerRequest,
  TriggerTarget,
} from './trigger-module.js';
export { createTriggerRegistry, type TriggerRegistry } from './trigger-registry.js';
