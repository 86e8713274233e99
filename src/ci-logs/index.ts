/**
 * ci-logs: a failed job's log and workflow turned into what a fix needs —
 * the failing step, an excerpt that keeps every line explaining the failure,
 * and the command that reproduces it. Pure and streaming: no adapter, no SDK.
 */
export type { CiSystem } from './ci-format.js';
export {
  DEFAULT_MAX_LINES,
  type ExcerptOptions,
  excerptLog,
  formatExcerpt,
  type LogSource,
} from './excerpt-log.js';
export { type Reproduction, reproduce } from './reproduce-command.js';
export type { ExcerptLine, LogExcerpt } from './select-lines.js';
export { type ExpressionScope, expressionsIn, substitute, usesSecret } from './workflow-matrix.js';
export {
  findFailedJob,
  localActionPaths,
  type RecoveredStep,
  recoverFailingStep,
  recoverStep,
  type StepQuery,
  type WorkflowFiles,
} from './workflow-step.js';
export { parseWorkflow, type WorkflowService, type WorkflowStep } from './workflow-yaml.js';
