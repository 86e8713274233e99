import { GitHubApiError, GitHubNotFoundError, SelfdebugError } from '../../errors/index.js';
import { Redactor } from '../../report/index.js';
import { adviceFor, type CredentialAdvice, type GitHubCredential } from './credential-advice.js';

/**
 * The parts of Octokit's RequestError we rely on. Matched by shape rather
 * than `instanceof`: @octokit/request-error is not our dependency, and a
 * second copy of it in node_modules would break `instanceof` anyway.
 */
interface HttpFailure {
  status: number;
  response?: { headers?: Record<string, string | number | undefined>; data?: unknown };
}

const SERVER_TEXT_LIMIT = 300;

/** GitHub's words may echo a credential of any shape after `token` or `bearer`; no secret of ours is known here. */
const SERVER_WORDS = new Redactor([], { wordAfterToken: true });

function isHttpFailure(error: unknown): error is HttpFailure {
  return error instanceof Error && 'status' in error && typeof error.status === 'number';
}

/**
 * Turns whatever Octokit threw into one of our errors. `action` says what
 * we were doing, in words a maintainer understands ("creating a check run
 * on octo-org/app"); the message adds what to do about it, in the words of
 * whoever holds the `credential` (an App's installation, a workflow's token).
 */
export function mapGitHubError(
  error: unknown,
  action: string,
  credential: GitHubCredential = 'app-installation',
): SelfdebugError {
  if (error instanceof SelfdebugError) return error;
  if (!isHttpFailure(error)) {
    const detail = SERVER_WORDS.redact(error instanceof Error ? error.message : String(error));
    return new GitHubApiError(`Calling GitHub failed while ${action}: ${detail}. Try again later.`, {
      status: undefined,
      cause: error,
    });
  }

  const headers = error.response?.headers ?? {};
  const requestId = header(headers, 'x-github-request-id');
  const answer: HttpAnswer = {
    status: error.status,
    headers,
    said: serverText(error.response?.data),
    reference: requestId === undefined ? '' : ` GitHub request id: ${requestId}.`,
    common: { cause: error, status: error.status, ...(requestId === undefined ? {} : { requestId }) },
  };
  const rateLimit = rateLimitWait(error.status, headers);
  const advice = adviceFor(credential);
  if (rateLimit !== undefined) return rateLimited(answer, action, advice, rateLimit.seconds);
  return statusError(answer, action, advice);
}

/** What GitHub answered, as the messages quote it: its words and its request id, each maybe ''. */
interface HttpAnswer {
  status: number;
  headers: Record<string, string | number | undefined>;
  said: string;
  reference: string;
  /** The options every error of this answer carries. */
  common: { cause: unknown; status: number; requestId?: string };
}

function rateLimited(
  answer: HttpAnswer,
  action: string,
  advice: CredentialAdvice,
  seconds: number | undefined,
): SelfdebugError {
  const { status, said, reference, common } = answer;
  const wait = seconds === undefined ? 'a while' : `${seconds} s`;
  return new GitHubApiError(
    `GitHub rate-limited ${advice.limited} while ${action} (HTTP ${status}${said}).${reference} ` +
      `Wait ${wait} and try again; if it keeps happening, run fewer jobs at once.`,
    { ...common, retryable: true, ...(seconds === undefined ? {} : { retryAfterSeconds: seconds }) },
  );
}

function statusError(answer: HttpAnswer, action: string, advice: CredentialAdvice): SelfdebugError {
  const { status, said, reference, common } = answer;
  if (status === 404)
    return new GitHubNotFoundError(
      `GitHub found nothing while ${action} (HTTP 404${said}).${reference} Check that it exists and that ` +
        advice.notFound,
      common,
    );
  if (status === 401)
    return new GitHubApiError(
      `GitHub refused ${advice.refusedWho} while ${action} (HTTP 401${said}).${reference} ${advice.refusedAdvice}`,
      common,
    );
  if (status === 403) {
    const { lacks, advice: what } = advice.forbidden(answer.headers);
    return new GitHubApiError(
      `GitHub refused ${action} (HTTP 403${said}): ${lacks}.${reference} ${what}`,
      common,
    );
  }
  if (status === 422 || status === 409 || status === 410)
    return new GitHubApiError(
      `GitHub rejected ${action} (HTTP ${status}${said}).${reference} Check the values it names (branch, ` +
        'SHA, label, pull request) still exist and are allowed; if they do, report this as a selfdebug bug.',
      common,
    );
  if (status >= 500)
    return new GitHubApiError(
      `GitHub failed while ${action} (HTTP ${status}${said}).${reference} This is usually temporary: try ` +
        'again later, and check https://www.githubstatus.com if it persists.',
      { ...common, retryable: true },
    );
  return new GitHubApiError(
    `GitHub answered HTTP ${status}${said} while ${action}.${reference} Try again; if it persists, report this ` +
      'as a selfdebug bug.',
    common,
  );
}

/**
 * GitHub signals both limits with 403 or 429: the secondary limit carries
 * `retry-after`, the primary one `x-ratelimit-remaining: 0` and a reset time.
 */
function rateLimitWait(
  status: number,
  headers: Record<string, string | number | undefined>,
): { seconds: number | undefined } | undefined {
  if (status !== 403 && status !== 429) return undefined;
  const retryAfter = seconds(header(headers, 'retry-after'));
  if (retryAfter !== undefined) return { seconds: retryAfter };
  if (header(headers, 'x-ratelimit-remaining') === '0') {
    const reset = seconds(header(headers, 'x-ratelimit-reset'));
    const now = Math.floor(Date.now() / 1000);
    return { seconds: reset === undefined ? undefined : Math.max(0, reset - now) };
  }
  return status === 429 ? { seconds: undefined } : undefined;
}

function header(headers: Record<string, string | number | undefined>, name: string): string | undefined {
  const value = headers[name];
  return value === undefined ? undefined : String(value);
}

function seconds(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const parsed = Number(value);
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : undefined;
}

/** GitHub's own words from the error body, shortened; never the request, which held the token. */
function serverText(data: unknown): string {
  if (typeof data !== 'object' || data === null || !('message' in data)) return '';
  const message = data.message;
  if (typeof message !== 'string' || message.trim() === '') return '';
  const text = message.length > SERVER_TEXT_LIMIT ? `${message.slice(0, SERVER_TEXT_LIMIT)}…` : message;
  return `: ${SERVER_WORDS.redact(text)}`;
}
