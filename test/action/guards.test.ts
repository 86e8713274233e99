import { describe, expect, it } from 'vitest';
import type { FailedRun } from '../../src/action/event.js';
import { roundsExhausted, untrustedBot } from '../../src/action/guards.js';

function runBy(login: string, type: string, branch = 'main'): FailedRun {
  return {
    runId: 1,
    runAttempt: 1,
    workflowName: 'CI',
    branch,
    sha: 'a'.repeat(40),
    actor: { login, type },
    pullRequest: null,
    separate: false,
  };
}

describe('untrustedBot', () => {
  it('skips a bot not in trusted-bots, and says which input lets it in', () => {
    expect(untrustedBot(runBy('renovate[bot]', 'Bot'), ['dependabot[bot]'])).toBe(
      'the run was started by renovate[bot], a bot not listed in the `trusted-bots` input; nothing to do.',
    );
    // A `[bot]` login is a bot even when the payload gives no type.
    expect(untrustedBot(runBy('release[bot]', ''), [])).not.toBeNull();
  });

  it('lets through people, listed bots (any case), and its own fixes on selfdebug/ branches', () => {
    expect(untrustedBot(runBy('alice', 'User'), [])).toBeNull();
    expect(untrustedBot(runBy('dependabot[bot]', 'Bot'), ['Dependabot[bot]'])).toBeNull();
    expect(untrustedBot(runBy('github-actions[bot]', 'Bot', 'selfdebug/run-1-1'), [])).toBeNull();
  });
});

describe('roundsExhausted', () => {
  it('stops at max_rounds, naming the setting', () => {
    expect(roundsExhausted(1, 2)).toBeNull();
    expect(roundsExhausted(2, 2)).toMatch(
      /^selfdebug already pushed 2 automatic fixes on this branch \(the limit is 2, `triggers.workflow_runs.max_rounds`/,
    );
  });
});
