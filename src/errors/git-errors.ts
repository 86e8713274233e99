import { SelfdebugError, type SelfdebugErrorOptions } from './selfdebug-error.js';

/** The step of the workspace's life a git failure happened in. */
export type GitOperation = 'checkout' | 'branch' | 'commit' | 'push' | 'dispose';

/**
 * A git command failed for a reason that is not one of the more specific
 * errors below. The message never contains the installation token: the
 * adapter scrubs git's output before it gets here.
 */
export class GitError extends SelfdebugError {
  readonly operation: GitOperation;
  constructor(operation: GitOperation, message: string, options: SelfdebugErrorOptions = {}) {
    super('git', message, options);
    this.operation = operation;
  }
}

/** The git server answered 401 or 403 to the installation token. */
export class GitAuthError extends SelfdebugError {
  readonly operation: GitOperation;
  constructor(operation: GitOperation, remote: string, options: SelfdebugErrorOptions = {}) {
    super(
      'git-auth',
      `The git server refused the installation token while trying to ${operation} ${remote} (HTTP 401/403). ` +
        'The token has expired, or the App installation lacks the "Contents" permission on this ' +
        'repository (read for checkout, read & write for push). Grant the permission in the App ' +
        "settings, have the installation's owner accept it, then run the job again.",
      { ...options, retryable: false },
    );
    this.operation = operation;
  }
}

/**
 * A push was refused because the remote branch no longer points where this
 * workspace's history expects. selfdebug never force-pushes over someone's work.
 */
export class BranchMovedError extends SelfdebugError {
  readonly branch: string;
  constructor(branch: string, options: SelfdebugErrorOptions = {}) {
    super(
      'branch-moved',
      `The branch "${branch}" moved on the remote while this job was running (someone else pushed to it). ` +
        'selfdebug never force-pushes: run the job again to start from the new head, or delete the ' +
        'branch if its commits are not wanted.',
      { ...options, retryable: false },
    );
    this.branch = branch;
  }
}

/** Why a push to a branch was refused. */
export type ProtectionReason = 'outside-prefix' | 'remote-rule';

/**
 * A push to a branch selfdebug must not (outside `selfdebug/`, refused before
 * git runs) or cannot (a protection rule on the remote) write to.
 */
export class ProtectedBranchError extends SelfdebugError {
  readonly branch: string;
  readonly reason: ProtectionReason;
  constructor(branch: string, reason: ProtectionReason, options: SelfdebugErrorOptions = {}) {
    super(
      'protected-branch',
      reason === 'outside-prefix'
        ? `Refusing to push to "${branch}": selfdebug only pushes to branches under "selfdebug/" that it ` +
            'created. Choose a branch name starting with "selfdebug/".'
        : `The git server refused the push to "${branch}" because a branch protection rule or ruleset ` +
            'covers it. Exclude "selfdebug/*" from the rule, or let the App bypass it.',
      { ...options, retryable: false },
    );
    this.branch = branch;
    this.reason = reason;
  }
}
