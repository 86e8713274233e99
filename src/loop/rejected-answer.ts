import { InvalidModelOutputError, UNUSABLE_ANSWER_ADVICE } from '../errors/index.js';
import type { LoopEvent } from './events.js';
import { NOTE_ROOM } from './prompts.js';
import type { RetryDecision } from './schemas.js';
import { clip } from './tokens.js';

/**
 * What the loop does with an answer that stayed unusable after its repair
 * round (src/loop/structured-call.ts). A bad answer costs an attempt, never
 * the job; the wording the model and the transcript get lives here, in one
 * place. Only a model server that cannot be used (ModelApiError,
 * ModelAuthError) ends a job.
 */

type AnswerRejected = Extract<LoopEvent, { type: 'answer-rejected' }>;

/** Lets a failed repair round reach the loop as a value; every other failure is thrown on. */
export function invalidAnswer(error: unknown): InvalidModelOutputError {
  if (error instanceof InvalidModelOutputError) return error;
  throw error;
}

/** What the next attempt sees when nothing was run: why, then the run that still stands. */
export function notRun(why: string, latestRun: string): string {
  return `${clip(why, NOTE_ROOM - 60)}\n\nThe command was not run again; its latest run:\n${latestRun}`;
}

/** An unusable fix proposal: the attempt fails, and the next one is told what was wrong with it. */
export function rejectedProposal(
  attempt: number,
  error: InvalidModelOutputError,
  latestRun: string,
): { event: AnswerRejected; problem: string; latestFailure: string } {
  const problem = `No usable answer: ${error.problems}`;
  return {
    event: {
      type: 'answer-rejected',
      attempt,
      purpose: 'generate',
      problem: error.problems,
      advice: UNUSABLE_ANSWER_ADVICE,
      consequence: 'the attempt counts as failed; the next attempt is told what was wrong',
    },
    problem,
    latestFailure: notRun(
      `The answer of attempt ${attempt} could not be used, so nothing was changed or run. ${problem}\n` +
        'Answer with only the JSON object described in the instructions.',
      latestRun,
    ),
  };
}

/**
 * An unusable retry decision counts as "retry": one is only asked for while
 * attempts remain, and giving up on a garbled answer would waste them.
 */
export function fallbackDecision(
  attempt: number,
  error: InvalidModelOutputError,
): { event: AnswerRejected; decision: RetryDecision } {
  return {
    event: {
      type: 'answer-rejected',
      attempt,
      purpose: 'retry-decision',
      problem: error.problems,
      advice: UNUSABLE_ANSWER_ADVICE,
      consequence: 'taken as "retry", since attempts remain',
    },
    decision: {
      retry: true,
      reason: 'the model gave no usable decision, so another attempt is made while attempts remain',
    },
  };
}

/** An unusable reflection: the outcome stands on what was run, and its reason says the write-up is missing. */
export function rejectedReflection(
  error: InvalidModelOutputError,
  reason: string,
): { event: AnswerRejected; reason: string } {
  return {
    event: {
      type: 'answer-rejected',
      attempt: null,
      purpose: 'reflect',
      problem: error.problems,
      advice: UNUSABLE_ANSWER_ADVICE,
      consequence: 'the result has no reflection',
    },
    reason: `${reason} (no reflection: the model's answer could not be read as one)`,
  };
}
