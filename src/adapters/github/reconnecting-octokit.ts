import { reconnectingFetch } from '../http/reconnecting-fetch.js';

/** What this needs of an Octokit: its request hooks (@octokit/core's before-hook). */
interface Hookable {
  hook: {
    before(name: 'request', hook: (options: { request?: Record<string, unknown> }) => void): void;
  };
}

const fetchAgainIfIdempotent = reconnectingFetch();
/** Octokits already hooked: the App wraps each event's Octokit wherever it is used, once is enough. */
const hooked = new WeakSet<object>();

/**
 * Sends GitHub API requests through reconnectingFetch: a GET, PUT or DELETE
 * that meets a keep-alive connection GitHub (or a proxy) closed under it is
 * sent again at once on a fresh one. POSTs and PATCHes are left to Octokit's
 * retry plugin, which knows GitHub's answers; without it a stale socket cost a
 * GET a second or more of back-off, or the whole call where retries are off.
 * A fetch the caller set explicitly (tests, the job-log reader) is kept.
 */
export function useReconnectingFetch<T extends Hookable>(octokit: T): T {
  if (hooked.has(octokit)) return octokit;
  hooked.add(octokit);
  octokit.hook.before('request', (options) => {
    if (options.request?.fetch !== undefined) return;
    options.request = { ...options.request, fetch: fetchAgainIfIdempotent };
  });
  return octokit;
}
