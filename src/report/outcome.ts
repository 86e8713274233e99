import type { CheckConclusion } from '../code-host/code-host.js';
import type { LoopOutcome } from '../loop/events.js';

export interface OutcomeDescription {
  emoji: string;
  /** A short name, e.g. for a check run title. */
  label: string;
  /** What it means, in a plain sentence a person who never saw the loop understands. */
  sentence: string;
}

const DESCRIPTIONS: Record<LoopOutcome, OutcomeDescription> = {
  fixed: { emoji: '✅', label: 'Fixed', sentence: 'The command passes now.' },
  explained: {
    emoji: '📝',
    label: 'Explained',
    sentence: 'The failure was reproduced and explained; no code was changed.',
  },
  'not-fixed': { emoji: '❌', label: 'Not fixed', sentence: 'Every attempt still failed.' },
  declined: {
    emoji: '🛑',
    label: 'Declined',
    sentence: 'The model judged that another attempt would not help, so it stopped.',
  },
  flaky: {
    emoji: '🎲',
    label: 'Flaky',
    sentence: 'The command passed and failed on identical runs, so no code was changed.',
  },
  'cannot-reproduce': {
    emoji: '🔍',
    label: 'Cannot reproduce',
    sentence: 'The command passed every time, so there was nothing to fix.',
  },
  'budget-exhausted': {
    emoji: '💸',
    label: 'Budget exhausted',
    sentence: "The job's token, cost or time budget ran out before a fix was found.",
  },
  cancelled: { emoji: '⏹️', label: 'Cancelled', sentence: 'The job was stopped before it finished.' },
  environment: {
    emoji: '🧰',
    label: 'Environment problem',
    sentence:
      'The command failed because the environment lacks something, not because of the code; no model attempt was spent.',
  },
  error: { emoji: '⚠️', label: 'Error', sentence: 'The job could not finish.' },
};

export function describeOutcome(outcome: LoopOutcome): OutcomeDescription {
  return DESCRIPTIONS[outcome];
}

/**
 * A failing script that stays failing fails the check; runs that changed
 * nothing because nothing was wrong (flaky, not reproducible, explained)
 * are neutral, so they do not block a merge.
 */
export function checkConclusion(outcome: LoopOutcome): CheckConclusion {
  switch (outcome) {
    case 'fixed':
      return 'success';
    case 'flaky':
    case 'cannot-reproduce':
    case 'explained':
      return 'neutral';
    case 'cancelled':
      return 'cancelled';
    case 'not-fixed':
    case 'declined':
    case 'budget-exhausted':
    case 'environment':
    case 'error':
      return 'failure';
  }
}
