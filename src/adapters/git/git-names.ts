import { GitError, type GitOperation, ProtectedBranchError } from '../../errors/index.js';
import { isOwnBranch } from '../../workspace/selfdebug-branches.js';

const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i;

export function assertSha(sha: string): void {
  if (!SHA.test(sha)) {
    throw new GitError(
      'checkout',
      `"${sha}" is not a full commit sha. Pass the 40-character sha of the commit.`,
    );
  }
}

export function assertRefName(operation: GitOperation, name: string): void {
  if (!isRefName(name)) {
    throw new GitError(
      operation,
      `"${name}" is not a valid git branch or ref name. Use a name such as "selfdebug/fix-123".`,
    );
  }
}

/** Refuses, before git runs, any push outside the App's own branches. */
export function assertPushable(branch: string): void {
  if (!isOwnBranch(branch)) throw new ProtectedBranchError(branch, 'outside-prefix');
  assertRefName('push', branch);
}

/**
 * The rules of `git check-ref-format`, a little stricter. Names reach git as
 * arguments and as part of a refspec, so a leading `-`, `:` or `+` must never
 * get through.
 */
function isRefName(name: string): boolean {
  if (name.length === 0 || name.length > 255 || name === '@') return false;
  if (name.startsWith('-') || name.includes('..') || name.includes('@{')) return false;
  for (const character of name) {
    const code = character.codePointAt(0) ?? 0;
    if (code <= 0x20 || code === 0x7f || '~^:?*[\\+'.includes(character)) return false;
  }
  return name
    .split('/')
    .every(
      (part) => part.length > 0 && !part.startsWith('.') && !part.endsWith('.') && !part.endsWith('.lock'),
    );
}
