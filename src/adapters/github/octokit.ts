import type { ProbotOctokit } from 'probot';

/**
 * The client the adapter talks through: Probot's `context.octokit`, or a
 * `ProbotOctokit` built by the CLI. Its config plugin gives `config.get`.
 */
export type GitHubOctokit = ProbotOctokit;
