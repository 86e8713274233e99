import type { GitHubOctokit } from '../adapters/github/index.js';
import type { Metrics, RateLimit } from '../metrics/metrics.js';

/** Octokits already observed: the App observes each event's Octokit wherever it is used, once is enough. */
const observed = new WeakSet<object>();

/**
 * Counts every GitHub API request `octokit` makes, by method and status, and
 * keeps the rate limit GitHub reported last. Hooked after Octokit's retry and
 * throttling plugins, so a request they send again counts once, with the
 * status it ended on.
 */
export function observeGitHub(octokit: GitHubOctokit, metrics: Metrics): GitHubOctokit {
  if (observed.has(octokit)) return octokit;
  observed.add(octokit);
  octokit.hook.after('request', (response, options) => {
    metrics.githubRequest(options.method, response.status, remaining(response.headers));
  });
  octokit.hook.error('request', (error, options) => {
    const failed = error as { status?: number; response?: { headers?: Record<string, unknown> } };
    metrics.githubRequest(options.method, failed.status ?? 'error', remaining(failed.response?.headers));
    throw error;
  });
  return octokit;
}

function remaining(headers: Record<string, unknown> | undefined): RateLimit | null {
  const value = headers?.['x-ratelimit-remaining'];
  const count = Number(value);
  if (value === undefined || value === '' || Number.isNaN(count)) return null;
  // GitHub names a handful of resources; anything else is folded into one label value, so the series stay few.
  const resource = String(headers?.['x-ratelimit-resource'] ?? 'core');
  return { resource: /^[a-z_]{1,32}$/.test(resource) ? resource : 'other', remaining: count };
}
