import { createProbot } from 'probot';
import type { GitHubOctokit } from '../adapters/github/index.js';
import type { Environment } from '../config/read-environment.js';
import type { ProcessLogger } from './start-jobs.js';

export interface AppIdentity {
  auth: (installationId: number) => Promise<GitHubOctokit>;
  logger: ProcessLogger;
}

/**
 * The App's identity outside a Probot server (`selfdebug worker`): Probot
 * reads APP_ID and the private key from `env` and sets up its logger and
 * Octokit asynchronously; loading an empty app waits for that.
 */
export async function loadAppIdentity(env: Environment): Promise<AppIdentity> {
  const probot = createProbot({ env });
  await probot.load(() => {});
  return { auth: (id) => probot.auth(id), logger: probot.log };
}
