import type { Context } from 'probot';
import { GitHubCodeHost, useReconnectingFetch } from '../adapters/github/index.js';
import type { CodeHost } from '../code-host/code-host.js';
import type { Metrics } from '../metrics/metrics.js';
import { observeGitHub } from './observe-github.js';

/**
 * The webhook handlers' CodeHost: the delivery's own Octokit, already
 * authenticated as the installation the webhook came from, on its repository.
 * Its idempotent requests are sent again on a stale keep-alive socket, as a job's are.
 */
function contextCodeHost(context: Context): CodeHost {
  return new GitHubCodeHost(useReconnectingFetch(context.octokit), context.repo());
}

/** contextCodeHost, with every GitHub request the handlers make counted in `metrics`. */
export function observedContextCodeHost(metrics: Metrics): (context: Context) => CodeHost {
  return (context) => {
    observeGitHub(context.octokit, metrics);
    return contextCodeHost(context);
  };
}
