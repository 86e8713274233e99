import { isOwnBranch } from '../workspace/selfdebug-branches.js';
import type { FailedRun } from './event.js';

/**
 * Why a run started by a bot is skipped, or null to go on. A bot's push on
 * the action's own branch is its own fix being tested, bounded by the round
 * cap; any other bot (Dependabot, a release bot) needs listing in
 * `trusted-bots`, so no automation can spend the model budget unasked.
 */
export function untrustedBot(run: FailedRun, trustedBots: readonly string[]): string | null {
  const login = run.actor.login.toLowerCase();
  const isBot = run.actor.type === 'Bot' || login.endsWith('[bot]');
  if (!isBot || isOwnBranch(run.branch)) return null;
  if (trustedBots.some((trusted) => trusted.toLowerCase() === login)) return null;
  return `the run was started by ${run.actor.login}, a bot not listed in the \`trusted-bots\` input; nothing to do.`;
}

export function roundsExhausted(rounds: number, limit: number): string | null {
  if (rounds < limit) return null;
  return (
    `selfdebug already pushed ${rounds} automatic ${rounds === 1 ? 'fix' : 'fixes'} on this branch ` +
    `(the limit is ${limit}, \`triggers.workflow_runs.max_rounds\` in .github/selfdebug.yml); ` +
    'it stops here so it can never loop. Nothing to do.'
  );
}

/**
 * Why a run of a fork's code is skipped, or null to go on. A fork's pull request runs its author's
 * code; this workflow holds the model key and a token that can push, and a branch pushed here would
 * run the fork's code again in `on: push` workflows, with this repository's secrets.
 */
export function forkRefusal(run: FailedRun, allowForks: boolean): string | null {
  if (run.fork === null || allowForks) return null;
  return (
    `the failed code comes from ${run.fork}, a fork, not this repository: selfdebug does not run a fork's ` +
    "code with this workflow's key and token. Nothing was run. Set the `allow-forks: true` input to debug " +
    "forks' pull requests (the configuration is then read from the default branch, and the fix is only " +
    'suggested on the pull request).'
  );
}
