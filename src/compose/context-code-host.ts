import type { Context } from 'probot';
import { GitHubCodeHost } from '../adapters/github/index.js';
import type { CodeHost } from '../code-host/code-host.js';

/**
 * The webhook handlers' CodeHost: the delivery's own Octokit, already
 * authenticated as the installation the webhook came from, on its repository.
 */
export function contextCodeHost(context: Context): CodeHost {
  return new GitHubCodeHost(context.octokit, context.repo());
}
