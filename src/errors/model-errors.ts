import { SelfdebugError, type SelfdebugErrorOptions } from './selfdebug-error.js';

/** The model API answered with an error or not at all, after the adapter's own retries. */
export class ModelApiError extends SelfdebugError {
  readonly status: number | undefined;
  constructor(message: string, options: SelfdebugErrorOptions & { status?: number } = {}) {
    super('model-api', message, options);
    this.status = options.status;
  }
}

/**
 * Nothing answered at the model server's address (connection refused, no
 * such host). `what` is what happened, without the advice, for a caller
 * that knows better which setting the person used (the CLI's --base-url).
 */
export class ModelUnreachableError extends ModelApiError {
  readonly what: string;
  constructor(what: string, options: SelfdebugErrorOptions & { setting?: string } = {}) {
    const { setting = 'SELFDEBUG_MODEL_BASE_URL', ...rest } = options;
    super(`${what} Check ${setting} and that the server is running and reachable.`, rest);
    this.what = what;
  }
}

/** The API key is missing or refused: only the operator can fix it. */
export class ModelAuthError extends SelfdebugError {
  constructor(message: string, options: SelfdebugErrorOptions = {}) {
    super('model-auth', message, { ...options, retryable: false });
  }
}

/** The model kept answering with something that is not the requested structure, even after a repair round. */
export class InvalidModelOutputError extends SelfdebugError {
  readonly output: string;
  /** What the answer was for (generate, retry-decision, reflect…). */
  readonly purpose: string;
  /** What is wrong with the answer, without the advice for the operator: the loop tells the model this. */
  readonly problems: string;
  constructor(purpose: string, problems: string, output: string, options: SelfdebugErrorOptions = {}) {
    super(
      'invalid-model-output',
      `The model did not produce valid output for "${purpose}" even after being shown its mistakes:\n${problems}\n` +
        'Try a model that supports structured output (JSON schema), or lower the temperature.',
      options,
    );
    this.output = output;
    this.purpose = purpose;
    this.problems = problems;
  }
}
