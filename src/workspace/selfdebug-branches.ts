/**
 * The names by which selfdebug knows its own work in a repository, shared by
 * the App, the Action and the git adapter: a branch it may push to, and the
 * commits that count as automatic rounds on it.
 */

/** Every branch selfdebug pushes starts so: the git adapter refuses any other, and a run on one tests its own fix. */
export const BRANCH_PREFIX = 'selfdebug/';

/** The trailer of a fix made for a failed run; counting it on a branch caps how many rounds run there. */
export const ROUND_TRAILER = 'Selfdebug-Round: workflow-run';

export function isOwnBranch(branch: string): boolean {
  return branch.startsWith(BRANCH_PREFIX);
}

/**
 * One name of each shape the App's and the Action's branches take (see the
 * trigger modules), for checks that ask which workflows would run on them.
 */
export const OWN_BRANCH_EXAMPLES: readonly string[] = [
  `${BRANCH_PREFIX}issue-12-0a1b2c3d`,
  `${BRANCH_PREFIX}pr-34-0a1b2c3d`,
  `${BRANCH_PREFIX}run-5678-0a1b2c3d`,
  `${BRANCH_PREFIX}run-5678-1`,
];
