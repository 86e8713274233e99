import { ProbotOctokit } from 'probot';
import { GitWorkspaceProvider } from '../adapters/git/index.js';
import { GitHubCiHost, useReconnectingFetch } from '../adapters/github/index.js';
import type { ActionCodeHost, CiHost } from '../code-host/code-host.js';
import type { Environment } from '../config/read-environment.js';
import type { WorkspaceProvider } from '../workspace/workspace.js';

/**
 * The Action's CodeHost on its own repository (`owner/name`), for a plain
 * token (its GITHUB_TOKEN, or an App token a workflow made): over Probot's
 * Octokit, for the same retry and throttling plugins the App uses, with
 * idempotent requests sent again on a stale keep-alive socket. It follows
 * CI too: the Action records the verdict of its own pull request's CI.
 */
export function actionCodeHost(options: {
  token: string;
  apiUrl: string | undefined;
  repository: string;
}): ActionCodeHost & CiHost {
  const [owner = '', repo = ''] = options.repository.split('/');
  const octokit = new ProbotOctokit({ auth: { token: options.token }, baseUrl: options.apiUrl });
  // Its refusals advise the workflow's author (the workflow's `permissions:`), not an App's installer.
  return new GitHubCiHost(useReconnectingFetch(octokit), { owner, repo, credential: 'workflow-token' });
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
