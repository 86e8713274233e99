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
