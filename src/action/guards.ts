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
