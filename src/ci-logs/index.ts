/**
 * ci-logs: a failed job's log and workflow turned into what a fix needs —
 * the failing step, an excerpt that keeps every line explaining the failure,
 * and the command that reproduces it. Pure and streaming: no adapter, no SDK.
 */

export {
  DEFAULT_MAX_LINES,
  excerptLog,
  formatExcerpt,
} from './excerpt-log.js';
export { includedBy, matchesFilterPattern } from './filter-pattern.js';
export {
  classifyInfraFailure,
  type InfraFailure,
  InfraFailureReader,
  type InfraKind,
} from './infra-failure.js';
export { cutOutput, formatCut } from './output-cut.js';
export { reproduce } from './reproduce-command.js';
export type { LogExcerpt } from './select-lines.js';
export { type ExpressionScope, expressionsIn, substitute, usesSecret } from './workflow-matrix.js';
export {
  type SecretReadingWorkflow,
  type WorkflowFile,
  workflowsReadingSecrets,
} from './workflow-secrets.js';
export {
  findFailedJob,
  localActionPaths,
  recoverFailingStep,
  recoverStep,
  type StepQuery,
  type WorkflowFiles,
} from './workflow-step.js';
export type { BranchEvent, BranchPush } from './workflow-triggers.js';
export { parseWorkflow, type WorkflowService, type WorkflowStep } from './workflow-yaml.js';
