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
/**
 * What a person can do about answers the loop could not read: shown beside each rejected answer
 * (attempt comments, the CLI) and in the error that ends a call, so the fix is where the problem is.
 */
export const UNUSABLE_ANSWER_ADVICE =
  'If this repeats: let the server enforce the format with `model.structured_output: json_schema` in ' +
  '.github/selfdebug.yml (SELFDEBUG_MODEL_STRUCTURED_OUTPUT=json_schema for the App or the CLI) when ' +
  '`selfdebug doctor --model` shows json_schema ✔; otherwise use a model that follows JSON instructions, or lower ' +
  'its temperature. An answer cut off mid-way needs a larger `model.max_output_tokens`.';

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
        UNUSABLE_ANSWER_ADVICE,
      options,
    );
    this.output = output;
    this.purpose = purpose;
    this.problems = problems;
  }
}
