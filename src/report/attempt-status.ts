import type { AttemptView } from './job-view.js';

export type AttemptStatus =
  | 'thinking'
  | 'applying'
  | 'running'
  | 'deciding'
  | 'passed'
  | 'failed'
  | 'rejected'
  | 'refused'
  | 'no-answer'
  | 'stopped';

/** Where an attempt stands; `stopped` when the job ended in the middle of it (budget, cancel, error). */
export function attemptStatus(attempt: AttemptView, jobFinished: boolean): AttemptStatus {
  if (attempt.guardFindings) return 'refused';
  if (attempt.rejected) return 'rejected';
  if (!attempt.proposal && attempt.rejectedAnswers.some((answer) => answer.purpose === 'generate'))
    return 'no-answer';
  if (attempt.run) {
    if (attempt.run.result.exitCode === 0) return 'passed';
    const last = attempt.decision !== null || attempt.number >= attempt.maxAttempts || jobFinished;
    return last ? 'failed' : 'deciding';
  }
  if (jobFinished) return 'stopped';
  if (attempt.applied) return 'running';
  return attempt.proposal ? 'applying' : 'thinking';
}
