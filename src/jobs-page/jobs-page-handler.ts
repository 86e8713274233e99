import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JobStore } from '../queue/job-store.js';
import { checkAccess } from './operator-auth.js';
import { renderJobsPage } from './render-jobs-page.js';

const JOBS_PAGE_PATH = '/jobs';

export interface JobsPageOptions {
  store: Pick<JobStore, 'history' | 'openJobs'>;
  /** SELFDEBUG_OPERATOR_TOKEN; unset, the page is off. */
  token: string | undefined;
  /** Finished jobs shown (and counted in the totals and chart). */
  historyLimit?: number;
  now?: () => Date;
}

/** Read-only, never cached, never framed; styles inline and nothing else loads. */
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/**
 * The jobs page as a node request handler for Probot's server (`addHandler`):
 * answers GET /jobs and leaves every other path to the next handler.
 */
export function jobsPageHandler(options: JobsPageOptions) {
  return async (request: IncomingMessage, response: ServerResponse): Promise<boolean> => {
    const url = new URL(request.url ?? '/', 'http://selfdebug.invalid');
    if (url.pathname !== JOBS_PAGE_PATH) return false;
    const token = admit(request, response, url, options.token);
    if (token !== null) await servePage(request, response, options, token);
    return true;
  };
}

/**
 * The operator token when the request may see the page; null when it was
 * answered instead: a write, the page off, no token, or a token in the
 * address to move into a cookie.
 */
function admit(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  token: string | undefined,
): string | null {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    text(response, 405, 'The jobs page is read-only: use GET.', { allow: 'GET, HEAD' });
    return null;
  }
  if (token === undefined) {
    text(
      response,
      404,
      'The jobs page is off. Set SELFDEBUG_OPERATOR_TOKEN (24 characters or more, e.g. `openssl rand -hex 24`) and restart the App; see docs/operate.md.',
    );
    return null;
  }
  const access = checkAccess(request, url, token);
  if (access === 'denied') {
    text(
      response,
      401,
      'Send the operator token: `Authorization: Bearer <SELFDEBUG_OPERATOR_TOKEN>`, or open /jobs?token=<SELFDEBUG_OPERATOR_TOKEN> once in a browser.',
      { 'www-authenticate': 'Bearer realm="selfdebug jobs"' },
    );
    return null;
  }
  if (access === 'granted') return token;
  // The token leaves the address bar (and the browser's history) at once; the cookie carries the session.
  response
    .writeHead(303, { location: JOBS_PAGE_PATH, 'set-cookie': access.setCookie, 'cache-control': 'no-store' })
    .end();
  return null;
}

async function servePage(
  request: IncomingMessage,
  response: ServerResponse,
  options: JobsPageOptions,
  token: string,
): Promise<void> {
  let body: string;
  try {
    const [open, finished] = await Promise.all([
      options.store.openJobs(),
      options.store.history({ limit: options.historyLimit ?? 500 }),
    ]);
    body = renderJobsPage({ open, finished, now: options.now?.() ?? new Date(), secrets: [token] });
  } catch {
    // The store's own error may name hosts; the App's log has it, the page says what to look at.
    text(response, 503, 'Could not read the job queue. Check that it is reachable (the App logs say why).');
    return;
  }
  response.writeHead(200, PAGE_HEADERS).end(request.method === 'HEAD' ? undefined : body);
}

function text(
  response: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  response
    .writeHead(status, {
      'content-type': 'text/plain; charset=utf-8',
      'cache-control': 'no-store',
      ...headers,
    })
    .end(`${message}\n`);
}
