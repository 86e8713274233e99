import {
  BranchMovedError,
  GitAuthError,
  GitError,
  type GitOperation,
  ProtectedBranchError,
  SelfdebugError,
} from '../../errors/index.js';
import { GitCommandFailure } from './git-runner.js';

// git reports these only in words; this file is the one place that reads them.
const AUTHENTICATION =
  /returned error: 40[13]|Authentication failed|could not read (?:Username|Password)|terminal prompts disabled|Invalid username or password|Write access to repository not granted|Permission to \S+ denied/i;
const NOT_FOUND = /returned error: 404|repository '[^']*' not found|Repository not found/i;
const TRANSIENT =
  /returned error: 5\d\d|Could not resolve host|Failed to connect|Connection (?:refused|reset|timed out)|Operation timed out|RPC failed|early EOF|unexpected disconnect|remote end hung up|index\.lock/i;

// `git push --porcelain` prints one line per ref: `!<tab><from>:<to><tab>[rejected] (reason)`.
const MOVED = /^!\t\S+\t\[rejected\] \((?:fetch first|non-fast-forward|stale info)\)/m;
const PROTECTED = /^!\t\S+\t\[remote rejected\] \(.*protected branch|GH006|GH013/m;

const NEXT_STEP: Record<GitOperation, string> = {
  checkout:
    'Check that the repository and the commit still exist (a force-push can remove a commit) and that the ' +
    'App is installed on the repository; if the server does not serve commits by sha, pass the branch ' +
    'the commit is on as the ref.',
  branch: 'This is a bug in selfdebug; please report it with the message above.',
  commit: 'Check the paths the fix touched and the free disk space on the host.',
  push: 'Check that the repository still exists and accepts pushes, then run the job again.',
  dispose: 'Remove the folder by hand.',
};

/** Turns a failed git command into the error a caller can act on. */
export function mapGitFailure(operation: GitOperation, failure: unknown, remote: string): SelfdebugError {
  if (failure instanceof SelfdebugError) return failure;
  if (!(failure instanceof GitCommandFailure)) {
    // Only the runner's failures reach here; anything else is a programming error, kept as the cause.
    return new GitError(operation, `Unexpected failure during git ${operation}. ${NEXT_STEP[operation]}`, {
      cause: failure,
    });
  }
  const output = failure.output;
  if (AUTHENTICATION.test(output)) return new GitAuthError(operation, remote, { cause: failure });
  if (NOT_FOUND.test(output)) {
    return new GitError(
      operation,
      `The git server says ${remote} does not exist or is hidden from the App. ` +
        'Check the repository name and that the App is installed on it.',
      { cause: failure },
    );
  }
  if (failure.timedOut) {
    return new GitError(
      operation,
      `git ${failure.command} stopped answering during ${operation} of ${remote} and was stopped. ` +
        'Check the network between this host and the git server, then run the job again.',
      { cause: failure, retryable: true },
    );
  }
  return new GitError(
    operation,
    `git ${failure.command} failed during ${operation} of ${remote}:\n${output}\n${NEXT_STEP[operation]}`,
    { cause: failure, retryable: TRANSIENT.test(output) },
  );
}

/** A refused push says why in its porcelain output; the two refusals a caller handles get their own errors. */
export function mapPushFailure(failure: unknown, branch: string, remote: string): SelfdebugError {
  if (failure instanceof GitCommandFailure) {
    if (MOVED.test(failure.output)) return new BranchMovedError(branch, { cause: failure });
    if (PROTECTED.test(failure.output)) {
      return new ProtectedBranchError(branch, 'remote-rule', { cause: failure });
    }
  }
  return mapGitFailure('push', failure, remote);
}
