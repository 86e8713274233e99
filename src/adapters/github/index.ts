export { GitHubCiHost } from './ci-host.js';
export { GitHubCodeHost } from './github-code-host.js';

export type { GitHubOctokit } from './octokit.js';
export { useReconnectingFetch } from './reconnecting-octokit.js';
