import { attemptStatus } from './attempt-status.js';
import { formatNumber, plural } from './format.js';
import type { AttemptView, JobView } from './job-view.js';
import type { MarkdownWriter } from './markdown.js';
import { runStatus } from './runs.js';

/**
 * The "Why" beside an outcome, saying something its sentence does not. For
 * outcomes whose loop reason only restates the outcome ("still failing after
 * 3 attempts" under "Every attempt still failed"), the facts behind it are
 * shown instead: which attempt passed and what it changed, how the last
 * attempt ended, how many identical runs passed. Reasons that carry their
 * own facts (the model's reason to stop, a budget, an environment problem,
 * an error) are shown as the loop gave them. When the job has no reflection
 * the loop's reason is kept as well, since it then says why.
 */
export function whyLine(view: JobView, md: MarkdownWriter): string {
  const finished = view.finished!;
  const facts = derivedReason(view, md);
  if (facts === null) return md.line(finished.reason, 500);
  return view.reflection ? facts : `${facts.replace(/\.$/, '')} — ${md.line(finished.reason, 300)}`;
}

function derivedReason(view: JobView, md: MarkdownWriter): string | null {
  const finished = view.finished!;
  const runs = view.reproduction?.runs ?? [];
  const failedRun = runs.find((run) => run.exitCode !== 0);
  const command = view.task ? md.code(view.task.command) : 'the command';
  switch (finished.outcome) {
    case 'fixed': {
      const passed = view.attempts.find((attempt) => attemptStatus(attempt, true) === 'passed');
      if (!passed) return null;
      const files = finished.changedFiles.map((path) => md.code(path, 100));
      const changed = files.length === 0 ? '' : ` after changing ${listed(files)}`;
      return `attempt ${passed.number} of ${passed.maxAttempts} passed${changed}.`;
    }
    case 'not-fixed': {
      const last = view.attempts.at(-1);
      if (!last) return null;
      return `${attemptCounts(view.attempts)}; the last one ${lastAttempt(last, md)}.`;
    }
    case 'flaky': {
      if (!failedRun) return null;
      const passes = runs.filter((run) => run.exitCode === 0).length;
      return `${command} passed ${formatNumber(passes)} of ${plural(runs.length, 'identical run')}, then failed with ${runStatus(failedRun, md)}.`;
    }
    case 'cannot-reproduce': {
      if (runs.length === 0) return null;
      return `${command} passed ${formatNumber(runs.length)} of ${plural(runs.length, 'run')} in the sandbox.`;
    }
    case 'explained':
      if (!failedRun) return null;
      return `${command} fails with ${runStatus(failedRun, md)}; an explanation was asked for, not a fix.`;
    default:
      return null;
  }
}

/** "3 attempts: 2 ran and failed, 1 had edits that did not apply". */
function attemptCounts(attempts: readonly AttemptView[]): string {
  const counts = { ran: 0, rejected: 0, refused: 0, unusable: 0, stopped: 0 };
  for (const attempt of attempts) {
    const status = attemptStatus(attempt, true);
    if (status === 'rejected') counts.rejected++;
    else if (status === 'refused') counts.refused++;
    else if (status === 'no-answer') counts.unusable++;
    else if (status === 'stopped') counts.stopped++;
    else counts.ran++;
  }
  const parts = [`${formatNumber(counts.ran)} ran and failed`];
  if (counts.rejected > 0) parts.push(`${formatNumber(counts.rejected)} had edits that did not apply`);
  if (counts.refused > 0) parts.push(`${formatNumber(counts.refused)} refused by the test guard`);
  if (counts.unusable > 0) parts.push(`${formatNumber(counts.unusable)} got no usable answer`);
  if (counts.stopped > 0) parts.push(`${formatNumber(counts.stopped)} stopped early`);
  return `${plural(attempts.length, 'attempt')}: ${parts.join(', ')}`;
}

function lastAttempt(attempt: AttemptView, md: MarkdownWriter): string {
  switch (attemptStatus(attempt, true)) {
    case 'rejected':
      return 'proposed edits that did not apply';
    case 'refused':
      return 'proposed edits the test guard refused';
    case 'no-answer':
      return 'got an answer from the model that could not be used';
    case 'stopped':
      return 'was stopped before it finished';
    default:
      return attempt.run ? `ended with ${runStatus(attempt.run.result, md)}` : 'did not run';
  }
}

function listed(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  if (items.length > 3) return `${items.slice(0, 3).join(', ')} and ${plural(items.length - 3, 'more file')}`;
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
