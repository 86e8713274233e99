import { SelfdebugError, type SelfdebugErrorOptions } from './selfdebug-error.js';

export interface GitHubApiErrorOptions extends SelfdebugErrorOptions {
  /** The HTTP status GitHub answered with; undefined when no answer came back at all. */
  status: number | undefined;
  /** How long GitHub asked us to wait before trying again, when it said so. */
  retryAfterSeconds?: number;
  /** GitHub's `x-github-request-id`, for a support ticket. */
  requestId?: string;
}

/**
 * A call to GitHub's API failed. `retryable` is true for server errors and
 * rate limits (primary and secondary), where the same call may succeed later.
 */
export class GitHubApiError extends SelfdebugError {
  readonly status: number | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly requestId: string | undefined;

  constructor(message: string, options: GitHubApiErrorOptions, code = 'github-api') {
    super(code, message, options);
    this.status = options.status;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.requestId = options.requestId;
  }
}

/** GitHub answered 404: the thing is gone, or the App cannot see it. */
export class GitHubNotFoundError extends GitHubApiError {
  constructor(message: string, options: Omit<GitHubApiErrorOptions, 'status'> = {}) {
    super(message, { ...options, status: 404, retryable: false }, 'github-not-found');
  }
}
