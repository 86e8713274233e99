/**
 * The base of every error selfdebug raises on purpose. Callers branch on `code`
 * or `instanceof`, never on message text; `message` is written for the person
 * who has to act on it and always says what to do next.
 */
export interface SelfdebugErrorOptions {
  cause?: unknown;
  retryable?: boolean;
}

export class SelfdebugError extends Error {
  readonly code: string;
  readonly retryable: boolean;

  constructor(code: string, message: string, options: SelfdebugErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? false;
  }
}
