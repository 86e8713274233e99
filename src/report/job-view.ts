import type { LoopEvent, LoopSummary, ReproductionStatus, Spend } from '../loop/events.js';
import type { Reflection } from '../loop/schemas.js';
import type { DebugTask, LoopLimits } from '../loop/task.js';
import type { PreparationReport } from '../sandbox/environment.js';
import type { ExecResult } from '../sandbox/sandbox.js';
import type { Trigger } from '../triggers/index.js';
import {
  type AttemptView,
  addUsage,
  type CommandRun,
  type ModelCall,
  NO_USAGE,
  newAttempt,
  type RejectedAnswer,
  reduceAttempt,
} from './attempt-view.js';

export type { AttemptView, CommandRun, ModelCall, ToolCallRecord } from './attempt-view.js';

/**
 * A job's state for the reports, folded from its loop events. The runner
 * keeps the events and the URLs of what it posted; everything shown is
 * derived from those, so a report can be rebuilt at any moment.
 */
export interface JobContext {
  jobId: string;
  /** `owner/name`. */
  repository: string;
  /** What started the job (src/triggers words it). */
  trigger: Trigger;
  /** Who asked, or the failed run's actor. */
  requestedBy: string;
  /** The App's mention handle, for suggestions such as `@selfdebug retry`. */
  handle?: string;
  statusCommentUrl?: string | null;
  /** Attempt number → URL of its comment, once posted. */
  attemptCommentUrls?: Readonly<Record<number, string>>;
  pullRequestUrl?: string | null;
  checkRunUrl?: string | null;
  /** Why no pull request could be opened after a fix, so the status says so instead of waiting. */
  deliveryError?: string | null;
  /** The commit the job tested, once known, with its page on GitHub. */
  commit?: TestedCommit | null;
  /** `single`: every attempt's transcript lives in the status comment instead of a comment of its own. */
  comments?: CommentMode;
  /** One-line notes for the status comment, e.g. a repository setting the operator's ceiling lowered. */
  notes?: readonly string[];
}

export interface TestedCommit {
  sha: string;
  url: string | null;
}

/** Where attempt transcripts go: one comment each (`per-attempt`) or all in the status comment (`single`). */
export type CommentMode = 'per-attempt' | 'single';

/** The loop's `finished` event as the report keeps it: one shape, declared with the event. */
type Finished = LoopSummary;

/** What the events say so far. */
export interface JobProgress {
  model: string | null;
  task: DebugTask | null;
  limits: LoopLimits | null;
  /** How the environment was prepared, when the sandbox prepared one. */
  environment: PreparationReport | null;
  setup: CommandRun[];
  reproduction: { status: ReproductionStatus; runs: ExecResult[] } | null;
  attempts: AttemptView[];
  /** Model calls outside attempts: the reflection (and its repairs), an explanation. */
  otherModelCalls: ModelCall[];
  reflection: Reflection | null;
  /** Why there is no reflection although the model answered: its answer could not be used. */
  reflectionRejected: RejectedAnswer | null;
  finished: Finished | null;
  /** The latest running total the model calls reported. */
  total: Spend;
  /** Where a repair call belongs: with the call it repairs. */
  lastCallAttempt: number | null;
}

export interface JobView extends JobProgress {
  jobId: string;
  repository: string;
  trigger: Trigger;
  requestedBy: string;
  handle: string;
  statusCommentUrl: string | null;
  attemptCommentUrls: Readonly<Record<number, string>>;
  pullRequestUrl: string | null;
  checkRunUrl: string | null;
  deliveryError: string | null;
  /** The commit the job pushed, once delivered: the one the repository's CI judges. */
  fixSha: string | null;
  commit: TestedCommit | null;
  comments: CommentMode;
  notes: readonly string[];
  events: readonly LoopEvent[];
}

export const initialProgress: JobProgress = {
  model: null,
  task: null,
  limits: null,
  environment: null,
  setup: [],
  reproduction: null,
  attempts: [],
  otherModelCalls: [],
  reflection: null,
  reflectionRejected: null,
  finished: null,
  total: { usage: NO_USAGE, costUsd: 0 },
  lastCallAttempt: null,
};

export function jobView(context: JobContext, events: readonly LoopEvent[]): JobView {
  return {
    ...events.reduce(reduceJobEvent, initialProgress),
    jobId: context.jobId,
    repository: context.repository,
    trigger: context.trigger,
    requestedBy: context.requestedBy,
    handle: context.handle ?? 'selfdebug',
    statusCommentUrl: context.statusCommentUrl ?? null,
    attemptCommentUrls: context.attemptCommentUrls ?? {},
    pullRequestUrl: context.pullRequestUrl ?? null,
    checkRunUrl: context.checkRunUrl ?? null,
    deliveryError: context.deliveryError ?? null,
    fixSha: null,
    commit: context.commit ?? null,
    comments: context.comments ?? 'per-attempt',
    notes: context.notes ?? [],
    events,
  };
}

/** The reducer: one event more. Returns a new progress and leaves the old one untouched. */
export function reduceJobEvent(progress: JobProgress, event: LoopEvent): JobProgress {
  switch (event.type) {
    case 'started':
      return { ...progress, model: event.model, task: event.task, limits: event.limits };
    case 'environment-prepared':
      return { ...progress, environment: event.preparation };
    case 'setup-ran':
      return { ...progress, setup: [...progress.setup, { command: event.command, result: event.result }] };
    case 'reproduced':
      return { ...progress, reproduction: { status: event.status, runs: event.runs } };
    case 'attempt-started':
      return {
        ...progress,
        attempts: [...progress.attempts, newAttempt(event.attempt, event.maxAttempts)],
        lastCallAttempt: event.attempt,
      };
    case 'model-responded':
      return addModelCall(progress, event);
    case 'tool-called':
    case 'proposal':
    case 'edits-applied':
    case 'edits-rejected':
    case 'executed':
    case 'retry-decided':
      return updateAttempt(progress, event.attempt, (attempt) => reduceAttempt(attempt, event));
    case 'answer-rejected':
      return addRejectedAnswer(progress, event);
    case 'reflected':
      return { ...progress, reflection: event.reflection };
    case 'finished': {
      const { type: _type, ...finished } = event;
      return { ...progress, finished, total: event.total };
    }
  }
}

/** An unusable answer goes with its attempt, or, outside attempts, stands for the missing reflection. */
function addRejectedAnswer(progress: JobProgress, event: Extract<LoopEvent, { type: 'answer-rejected' }>) {
  const { purpose, problem, consequence, advice } = event;
  const rejected = { purpose, problem, consequence, advice };
  if (event.attempt === null) return { ...progress, reflectionRejected: rejected };
  return updateAttempt(progress, event.attempt, (attempt) => ({
    ...attempt,
    rejectedAnswers: [...attempt.rejectedAnswers, rejected],
  }));
}

/**
 * A call counts towards an attempt when the loop says so; a repair counts
 * where the call it repairs did, because the loop's attempt counter still
 * points at the last attempt while it reflects.
 */
function addModelCall(progress: JobProgress, event: Extract<LoopEvent, { type: 'model-responded' }>) {
  const call: ModelCall = {
    purpose: event.purpose,
    content: event.content,
    toolCalls: event.toolCalls,
    usage: event.usage,
    costUsd: event.costUsd,
    durationMs: event.durationMs,
  };
  const owner =
    event.purpose === 'repair'
      ? progress.lastCallAttempt
      : event.purpose === 'reflect' || event.purpose === 'explain'
        ? null
        : event.attempt;
  const known = owner !== null && progress.attempts.some((attempt) => attempt.number === owner);
  const next = { ...progress, total: event.total, lastCallAttempt: known ? owner : null };
  if (!known) return { ...next, otherModelCalls: [...progress.otherModelCalls, call] };
  return updateAttempt(next, owner, (attempt) => ({
    ...attempt,
    modelCalls: [...attempt.modelCalls, call],
    usage: addUsage(attempt.usage, call.usage),
    costUsd: attempt.costUsd + call.costUsd,
  }));
}

function updateAttempt(
  progress: JobProgress,
  number: number,
  change: (attempt: AttemptView) => AttemptView,
): JobProgress {
  // An event for an attempt that never started would be a loop bug; it still gets shown, not dropped.
  const attempts = progress.attempts.some((attempt) => attempt.number === number)
    ? progress.attempts
    : [...progress.attempts, newAttempt(number, progress.limits?.maxAttempts ?? number)];
  return {
    ...progress,
    attempts: attempts.map((attempt) => (attempt.number === number ? change(attempt) : attempt)),
  };
}
