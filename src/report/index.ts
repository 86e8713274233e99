/**
 * report/: loop events → what people see on GitHub. Pure functions, no
 * I/O. The runner folds a job's events and the URLs of what it posted into
 * a `JobReport` (`reduceJobReport`, whose view is `jobView`'s), and renders; every renderer takes the
 * job's `Redactor` and applies it last.
 */

export { renderAttemptComment } from './attempt-comment.js';

export { renderCheckRunProgress, renderCheckRunResult } from './check-run.js';
export { renderCiSecretsWarning, withNotices } from './ci-secrets-warning.js';
export { ciVerdictCheckRun, ciVerdictSection, withCiVerdictSection } from './ci-verdict.js';
export { commitUrl } from './commit.js';
export { renderCommitMessage } from './commit-message.js';
export { renderConfigProblemCheckRun } from './config-check-run.js';

export { environmentLines, setupFailureMarkdown } from './environment-summary.js';
export { needsFinalComment, renderFinalComment } from './final-comment.js';
export { formatCost, formatDuration } from './format.js';
export { renderInfraFailure } from './infra-failure.js';
export {
  attemptsToPost,
  type JobReport,
  newJobReport,
  type OpenCheckRun,
  type ReportChange,
  reduceJobReport,
} from './job-report.js';
export {
  type CommentMode,
  type JobView,
  jobView,
} from './job-view.js';
export {
  attemptMarker,
  finalMarker,
  statusMarker,
} from './markers.js';
export { renderPullRequestBody, renderPullRequestTitle } from './pull-request.js';
export { Redactor } from './redact.js';
export { redactingLogger } from './redacting-logger.js';
export { codeBlock } from './sanitize.js';
export { renderStatusComment } from './status-comment.js';
