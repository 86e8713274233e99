import { ProbotOctokit } from 'probot';
import { GitWorkspaceProvider } from '../adapters/git/index.js';
import { GitHubCodeHost, type GitHubOctokit, useReconnectingFetch } from '../adapters/github/index.js';
import type { CodeHost } from '../code-host/code-host.js';
import type { Environment } from '../config/read-environment.js';
import type { WorkspaceProvider } from '../workspace/workspace.js';

// The Action finds the failed step and delivers suggestions through the REST API itself, so it names the client.
export type { GitHubOctokit } from '../adapters/github/index.js';

/**
 * An Octokit for a plain token (the Action's GITHUB_TOKEN, or an App token a
 * workflow made): Probot's, for the same retry and throttling plugins the App
 * uses, with idempotent requests sent again on a stale keep-alive socket.
 */
export function tokenOctokit(token: string, baseUrl: string | undefined): GitHubOctokit {
  return useReconnectingFetch(new ProbotOctokit({ auth: { token }, baseUrl }));
}

/** The Action's CodeHost on its own repository, over the token's client. */
export function tokenCodeHost(octokit: GitHubOctokit, repository: { owner: string; repo: string }): CodeHost {
  return new GitHubCodeHost(octokit, repository);
}

/**
 * Checkouts for the Action: over its GitHub server's own scheme (an
 * Enterprise server may be plain http), made under `parentDir` (the runner's
 * temporary folder). `host`: the variables the Action was started with.
 */
export function actionWorkspaces(options: {
  serverUrl: string;
  parentDir: string;
  host: Environment;
}): WorkspaceProvider {
  return new GitWorkspaceProvider({
    allowedProtocols: [new URL(options.serverUrl).protocol.replace(':', '')],
    parentDir: options.parentDir,
    host: options.host,
  });
}
