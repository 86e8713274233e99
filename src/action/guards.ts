import type { FailedRun } from './event.js';

/** The App's branch prefix: the action works on the same branches, so the same round cap applies to both. */
export const BRANCH_PREFIX = 'selfdebug/';
/** The trailer the App writes on automatic rounds; counting it is how both know how many rounds ran. */
export const ROUND_TRAILER = 'Selfdebug-Round: workflow-run';

export function isOwnBranch(branch: string): boolean {
  return branch.startsWith(BRANCH_PREFIX);
}

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
