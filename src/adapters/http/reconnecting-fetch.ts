/**
 * fetch that survives a keep-alive connection the server closed as a request
 * went out on it.
 *
 * undici (Node's fetch) keeps a connection for the server's Keep-Alive hint
 * minus 2 s, or 4 s without one; Node's own servers close after 5 s, uvicorn
 * (vLLM) after 5 s without a hint. The client's idle timer is an event-loop
 * timer: on a busy loop it runs late, the server's FIN sits unread, and the
 * next request is written onto a socket the server has already closed. fetch
 * then rejects with "fetch failed" caused by `other side closed`
 * (UND_ERR_SOCKET) or ECONNRESET/EPIPE. undici's maintainers call the race
 * unfixable in the client (nodejs/undici#3141, #3492) and document the remedy:
 * send an idempotent request again on such an error (its RetryHandler's
 * default methods and error codes).
 *
 * A rejected fetch means no response arrived, so the server never answered
 * the request; the retry goes out at once (the broken socket is gone from the
 * pool, so it takes another or a new one), a bounded number of times. A body
 * that can be read only once (a stream) is never sent again, nor a request
 * the caller aborted. Non-idempotent methods are sent again only when the
 * caller says the request has no side effects (`methods: 'any'`, e.g. a chat
 * completion); other POSTs are left to the caller's own retry policy.
 */

/** The methods undici's RetryHandler retries by default. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']);

/** A connection closed or reset under a request (undici's SocketError, or the OS's). */
const CLOSED_CONNECTION = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

export interface ReconnectingFetchOptions {
  /** 'idempotent' (default): only methods that may be repeated; 'any': the caller's requests have no side effects. */
  methods?: 'idempotent' | 'any';
  /** Further tries after the first (default 2: a pool may hold more than one stale connection). */
  retries?: number;
  /** The fetch to wrap (default: the global one, at call time). */
  fetch?: typeof fetch;
}

export function reconnectingFetch(options: ReconnectingFetchOptions = {}): typeof fetch {
  const retries = options.retries ?? 2;
  const anyMethod = options.methods === 'any';
  return async (input, init) => {
    const base = options.fetch ?? globalThis.fetch;
    for (let retry = 0; ; retry++) {
      try {
        return await base(input, init);
      } catch (error) {
        if (
          retry >= retries ||
          !closedConnection(error) ||
          init?.signal?.aborted === true ||
          !replayable(input, init) ||
          !(anyMethod || IDEMPOTENT.has(methodOf(input, init)))
        ) {
          throw error;
        }
      }
    }
  };
}

/** True when `error` (a fetch rejection) was a connection closed or reset under the request. */
function closedConnection(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Object; depth++) {
    if ('code' in current && typeof current.code === 'string' && CLOSED_CONNECTION.has(current.code)) {
      return true;
    }
    current = 'cause' in current ? current.cause : undefined;
  }
  return false;
}

function methodOf(input: Parameters<typeof fetch>[0], init: RequestInit | undefined): string {
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
  return method.toUpperCase();
}

/** A body that fetch can send again: none, or one held in memory (not a stream, not a used Request's). */
function replayable(input: Parameters<typeof fetch>[0], init: RequestInit | undefined): boolean {
  if (input instanceof Request && input.body !== null && init?.body === undefined) return false;
  const body = init?.body;
  return !(body instanceof ReadableStream) && !isAsyncIterable(body);
}

function isAsyncIterable(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
