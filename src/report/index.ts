/**
 * report/: loop events → what people see on GitHub. Pure functions, no
 * I/O. The runner keeps a job's events and the URLs of what it posted,
 * builds a `JobView` with `jobView`, and renders; every renderer takes the
 * job's `Redactor` and applies it last.
 */
export { type Activity, activityText, currentActivity } from './activity.js';
export { renderAttemptComment } from './attempt-comment.js';
export { type AttemptStatus, attemptStatus } from './attempt-status.js';
export { type CompletedCheckRun, renderCheckRunProgress, renderCheckRunResult } from './check-run.js';
export { commitLink, commitUrl, SHORT_SHA_LENGTH } from './commit.js';
export { renderCommitMessage } from './commit-message.js';
export { type ConfigProblemCheckRun, renderConfigProblemCheckRun } from './config-check-run.js';
export { addedLineRanges, diffAnnotations, type LineRange } from './diff-annotations.js';
export { environmentLines, setupFailureMarkdown } from './environment-summary.js';
export { FINAL_COMMENT_OUTCOMES, needsFinalComment, renderFinalComment } from './final-comment.js';
export { formatCost, formatDuration } from './format.js';
export {
  type AttemptView,
  type CommentMode,
  initialProgress,
  type JobContext,
  type JobProgress,
  type JobView,
  jobView,
  reduceJobEvent,
  type TestedCommit,
} from './job-view.js';
export {
  BODY_BUDGET,
  CHECK_OUTPUT_LIMIT,
  cutNote,
  fitBody,
  GITHUB_BODY_LIMIT,
  MAX_ANNOTATIONS_PER_REQUEST,
} from './limits.js';
export {
  attemptMarker,
  finalMarker,
  formatMarker,
  hasMarker,
  type Marker,
  parseMarkers,
  statusMarker,
} from './markers.js';
export { checkConclusion, describeOutcome, type OutcomeDescription } from './outcome.js';
export { renderPullRequestBody, renderPullRequestTitle, TITLE_LENGTH } from './pull-request.js';
export { MIN_SECRET_LENGTH, REDACTED, Redactor } from './redact.js';
export { redactingLogger } from './redacting-logger.js';
export { codeBlock, inlineCode, sanitizeProse } from './sanitize.js';
export { renderStatusComment } from './status-comment.js';
export { describeTrigger, issueToClose, summarizeTrigger, type TriggerSummary } from './trigger.js';
