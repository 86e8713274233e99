import { ProbotOctokit } from 'probot';
import { type GitHubOctokit, useReconnectingFetch } from '../adapters/github/index.js';

/**
 * An Octokit for a plain token (the Action's GITHUB_TOKEN, or an App token a
 * workflow made): Probot's, for the same retry and throttling plugins the App
 * uses, with idempotent requests sent again on a stale keep-alive socket.
 */
export function tokenOctokit(token: string, baseUrl: string | undefined): GitHubOctokit {
  return useReconnectingFetch(new ProbotOctokit({ auth: { token }, baseUrl }));
}
