export { GitHubCodeHost, type GitHubCodeHostOptions } from './github-code-host.js';
export { mapGitHubError } from './map-github-error.js';
export type { GitHubOctokit } from './octokit.js';
export { useReconnectingFetch } from './reconnecting-octokit.js';
