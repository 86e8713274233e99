import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { apiKeyVariables } from '../../config/model-config.js';
import { ModelApiError, ModelAuthError, ModelUnreachableError, SelfdebugError } from '../../errors/index.js';
import { Redactor } from '../../report/index.js';
import { CallDeadlineError } from './call-deadline.js';
import { isRetryable } from './retry-policy.js';

export interface FailureContext {
  /** Already stripped of credentials (see displayUrl). */
  baseUrl: string;
  model: string;
  /** HTTP requests made for this call, the failing one included. */
  tries: number;
  timeoutSeconds: number;
  idleTimeoutSeconds?: number;
  /** Only to blank it out of anything the server echoed back. */
  apiKey: string;
}

const SERVER_TEXT_LIMIT = 500;

/** How a failure message names the server and the tries, and whether the failure may pass. */
interface CallWords {
  server: string;
  tries: string;
  retryable: boolean;
}

/** Turns the SDK's failure after our own retries into one of our typed errors. */
export function mapOpenAIError(error: unknown, context: FailureContext): SelfdebugError {
  if (error instanceof SelfdebugError) return error;
  const call: CallWords = {
    server: `the model server at ${context.baseUrl}`,
    tries: `${context.tries} ${context.tries === 1 ? 'try' : 'tries'}`,
    retryable: isRetryable(error),
  };
  const transport = transportError(error, context, call);
  if (transport !== null) return transport;
  if (!(error instanceof APIError) || error.status === undefined) {
    const message = redact(error instanceof Error ? error.message : String(error), context.apiKey);
    return new ModelApiError(`Calling ${call.server} failed: ${message}`, { cause: error, retryable: false });
  }
  return statusError(error, error.status, context, call);
}

/** A call that got no full answer: silent or too slow a server, or no connection. Null for anything else. */
function transportError(error: unknown, context: FailureContext, call: CallWords): SelfdebugError | null {
  const { server, tries, retryable } = call;
  if (error instanceof CallDeadlineError && error.kind === 'idle') {
    return new ModelApiError(
      `${capitalise(server)} went silent for ${error.seconds} s in the middle of a call (${tries}). ` +
        'Check that the server is up and not overloaded, or raise SELFDEBUG_MODEL_IDLE_TIMEOUT_SECONDS ' +
        '(a long prompt on a slow local model may take a while before the first token).',
      { cause: error, retryable },
    );
  }
  if (error instanceof CallDeadlineError) {
    return new ModelApiError(
      `${capitalise(server)} was still answering after ${error.seconds} s, the cap for one call (${tries}). ` +
        'Raise SELFDEBUG_MODEL_TIMEOUT_SECONDS for slow models, or lower SELFDEBUG_MODEL_MAX_OUTPUT_TOKENS.',
      { cause: error, retryable: false },
    );
  }
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelApiError(
      `${capitalise(server)} did not answer within ${context.timeoutSeconds} s (${tries}). ` +
        'Raise SELFDEBUG_MODEL_TIMEOUT_SECONDS for slow models, or check that the server is up.',
      { cause: error, retryable },
    );
  }
  if (error instanceof APIConnectionError)
    return new ModelUnreachableError(
      `Could not reach ${server} (${connectionReason(error)}) after ${tries}.`,
      {
        cause: error,
        retryable,
      },
    );
  return null;
}

/** An HTTP error status: a refused key or model, rate limits and quota, a wrong URL, an unsupported request. */
function statusError(
  error: APIError,
  status: number,
  context: FailureContext,
  call: CallWords,
): SelfdebugError {
  const server = capitalise(call.server);
  const said = serverText(error, context.apiKey);
  const requestId = error.requestID ? ` Request id: ${error.requestID}.` : '';
  if (status === 401 || status === 403) {
    // No cause: the SDK error carries the server's words, and some servers quote part of the key.
    const refusal = status === 401 ? 'refused the API key' : `refused access to model "${context.model}"`;
    return new ModelAuthError(
      `${server} ${refusal} (HTTP ${status}${said}).${requestId} ` +
        `Check the key in ${apiKeyVariables} and that it may use model "${context.model}".`,
    );
  }
  const message = statusMessage(status, { said, requestId }, context, { ...call, server });
  return new ModelApiError(message, { cause: error, retryable: call.retryable, status });
}

/** The message for any other status; `answer` holds what the server said and its request id, each maybe ''. */
function statusMessage(
  status: number,
  answer: { said: string; requestId: string },
  context: FailureContext,
  call: CallWords,
): string {
  const { server, tries, retryable } = call;
  const { said, requestId } = answer;
  if (status === 429 && retryable)
    return (
      `${server} was still rate limiting after ${tries} (HTTP 429${said}).${requestId} ` +
      'Wait and try again, run fewer jobs at once, or raise SELFDEBUG_MODEL_MAX_RETRIES.'
    );
  if (status === 429)
    return (
      `${server} refused the request for quota reasons (HTTP 429${said}).${requestId} ` +
      `Check the plan and billing of the account behind ${apiKeyVariables}.`
    );
  if (retryable)
    return (
      `${server} did not answer successfully after ${tries} (last: HTTP ${status}${said}).` +
      `${requestId} Try again later, or raise SELFDEBUG_MODEL_MAX_RETRIES.`
    );
  if (status === 404)
    return (
      `${server} answered HTTP 404${said}.${requestId} Check SELFDEBUG_MODEL ("${context.model}") ` +
      'and SELFDEBUG_MODEL_BASE_URL (it usually ends in /v1).'
    );
  return (
    `${server} rejected the request (HTTP ${status}${said}).${requestId} ` +
    `The model "${context.model}" may lack a feature selfdebug uses (tools, JSON output); try another SELFDEBUG_MODEL.`
  );
}

/** The SDK prefixes its message with the status; the rest is the server's own words. */
function serverText(error: APIError, apiKey: string): string {
  const text = error.message
    .replace(/^\d{3}\s*/, '')
    .replace(/^status code \(no body\)$/, '')
    .trim();
  if (text === '') return '';
  const cut = text.length > SERVER_TEXT_LIMIT ? `${text.slice(0, SERVER_TEXT_LIMIT)}…` : text;
  return `: ${redact(cut, apiKey)}`;
}

/**
 * The project's redactor, told the configured key, and what only a model
 * server's error shows: a key masked with stars (`sk-****abcd`), and a
 * configured key too short to look for anywhere else.
 */
function redact(text: string, apiKey: string): string {
  return new Redactor([apiKey], { maskedKeys: true }).redact(text);
}

/** undici hides the useful part (ECONNREFUSED, "bad port") a cause or two down. */
function connectionReason(error: APIConnectionError): string {
  let reason = 'connection error';
  let current: unknown = error.cause;
  for (let depth = 0; depth < 4 && current instanceof Object; depth++) {
    if ('code' in current && typeof current.code === 'string' && current.code !== '') return current.code;
    if (current instanceof Error && current.message !== '') reason = current.message;
    current = 'cause' in current ? current.cause : undefined;
  }
  return reason;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
