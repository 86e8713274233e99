import { attemptStatus } from './attempt-status.js';
import { plural } from './format.js';
import type { AttemptView, JobView } from './job-view.js';
import type { MarkdownWriter } from './markdown.js';
import { isExplainJob, isRevisionJob } from './trigger.js';

/** What a running job is doing now, for the status line and the check run title. */
export interface Activity {
  /** e.g. "Attempt 2 of 5", "Reproducing"; null when nothing more specific applies. */
  step: string | null;
  /** e.g. "running", "the model is reading the code (3 tool calls so far)". */
  action: string;
  /** The command being run, shown as code by Markdown renderers. */
  command: string | null;
}

const REFLECTING = 'the model is reflecting on the run';

/**
 * Derived from the events alone: each event tells what the loop does next
 * (after `edits-applied` it runs the command, after a failed run it asks
 * the model whether to retry, and so on). Null once the job finished.
 */
export function currentActivity(view: JobView): Activity | null {
  if (view.finished) return null;
  const { task, reproduction } = view;
  if (!task) return { step: null, action: 'starting', command: null };
  const setup = task.setupCommands ?? [];
  const failedSetup = view.setup.some((run) => run.result.exitCode !== 0);
  if (failedSetup) return { step: null, action: REFLECTING, command: null };
  if (!reproduction && view.setup.length < setup.length) {
    return { step: 'Setup', action: 'running', command: setup[view.setup.length] ?? null };
  }
  if (!reproduction) return { step: 'Reproducing', action: 'running', command: task.command };
  if (view.reflection) return { step: null, action: 'wrapping up', command: null };
  const attemptsFollow = reproduction.status === 'failing' || isRevisionJob(view);
  if (!attemptsFollow || isExplainJob(view)) {
    return { step: null, action: REFLECTING, command: null };
  }
  const attempt = view.attempts.at(-1);
  const maxAttempts = attempt?.maxAttempts ?? view.limits?.maxAttempts ?? 1;
  if (!attempt) return { step: `Attempt 1 of ${maxAttempts}`, action: 'starting', command: null };
  return attemptActivity(attempt, maxAttempts, task.command);
}

/** During an attempt: what the attempt does now, or, once it is over, whether another starts or the model reflects. */
function attemptActivity(attempt: AttemptView, maxAttempts: number, taskCommand: string): Activity {
  const step = `Attempt ${attempt.number} of ${maxAttempts}`;
  const next = { step: `Attempt ${attempt.number + 1} of ${maxAttempts}`, action: 'starting', command: null };
  const hasNext = attempt.number < maxAttempts;
  switch (attemptStatus(attempt, false)) {
    case 'thinking':
      return attempt.toolCalls.length === 0
        ? { step, action: 'the model is working on a fix', command: null }
        : {
            step,
            action: `the model is reading the code (${plural(attempt.toolCalls.length, 'tool call')} so far)`,
            command: null,
          };
    case 'applying':
      return { step, action: 'applying the edits', command: null };
    case 'running':
      return { step, action: 'running', command: attempt.run?.command ?? taskCommand };
    case 'deciding':
      return { step, action: 'the model is deciding whether another attempt can help', command: null };
    case 'passed':
      return { step: null, action: `the command passed; ${REFLECTING}`, command: null };
    case 'rejected':
    case 'refused':
    case 'no-answer':
      return hasNext ? next : { step: null, action: REFLECTING, command: null };
    case 'failed':
      return hasNext && attempt.decision?.retry ? next : { step: null, action: REFLECTING, command: null };
    case 'stopped':
      return { step: null, action: REFLECTING, command: null };
  }
}

/** The activity as plain text, e.g. "Attempt 2 of 5: running pytest -q". */
export function activityText(activity: Activity): string {
  const action = activity.command ? `${activity.action} ${activity.command}` : activity.action;
  return activity.step ? `${activity.step}: ${action}` : capitalize(action);
}

/** The activity as Markdown, the step in bold and the command as code. */
export function activityMarkdown(activity: Activity, md: MarkdownWriter): string {
  const action = actionMarkdown(activity, md);
  return activity.step ? `**${activity.step}:** ${action}` : capitalize(action);
}

/** Just the action, e.g. "running `pytest -q`". */
export function actionMarkdown(activity: Activity, md: MarkdownWriter): string {
  return activity.command ? `${activity.action} ${md.code(activity.command)}` : activity.action;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
