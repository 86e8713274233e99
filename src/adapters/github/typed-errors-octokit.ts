import type { GitHubCredential } from './credential-advice.js';
import { mapGitHubError } from './map-github-error.js';
import { describeRequest, type RequestOptions } from './request-words.js';

/** What this needs of an Octokit: its request hooks (@octokit/core's error hook). */
interface Hookable {
  hook: {
    error(name: 'request', hook: (error: Error, options: RequestOptions) => never): void;
  };
}

/** Octokits already hooked: the App wraps each event's Octokit wherever it is used, once is enough. */
const hooked = new WeakSet<object>();

/**
 * Makes every request `octokit` sends fail with our typed errors (mapGitHubError),
 * named by what the request was doing (describeRequest), so no call of the adapter
 * maps its own. Hooked after Octokit's retry and throttling plugins (and the
 * metrics), which still see GitHub's own error; mapped errors keep its `status`, so
 * the paginate and config plugins' checks (404, 409) read them as before. The
 * advice in each message is for whoever holds `credential`.
 */
export function useTypedErrors<T extends Hookable>(
  octokit: T,
  credential: GitHubCredential = 'app-installation',
): T {
  if (hooked.has(octokit)) return octokit;
  hooked.add(octokit);
  octokit.hook.error('request', (error, options) => {
    throw mapGitHubError(error, describeRequest(options), credential);
  });
  return octokit;
}
