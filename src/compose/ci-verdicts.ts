import { GitHubCiHost, type GitHubOctokit, useReconnectingFetch } from '../adapters/github/index.js';
import { CiVerdictFollower } from '../jobs/ci-verdict-follower.js';
import type { Metrics } from '../metrics/metrics.js';
import type { JobStore } from '../queue/job-store.js';
import type { Logger } from '../util/logger.js';
import { realTimers } from '../util/timers.js';
import { observeGitHub } from './observe-github.js';

/**
 * The follower of fixes' CI (docs/ci-verdict.md) for a process that has the
 * queue: the App (told by workflow_run webhooks) and each worker (told when
 * a job pushed a fix, and sweeping for waits that are over once started).
 * They share the store, where the waits are kept and the first verdict
 * stands, so a fix is counted once whichever decides.
 */
export function ciVerdictFollower(
  appSlug: string,
  store: JobStore,
  auth: (installationId: number) => Promise<GitHubOctokit>,
  metrics: Metrics,
  logger: Logger,
): CiVerdictFollower {
  return new CiVerdictFollower({
    store,
    hostFor: async (fix) => {
      const [owner = '', repo = ''] = fix.repository.split('/');
      const octokit = observeGitHub(useReconnectingFetch(await auth(fix.installationId)), metrics);
      return new GitHubCiHost(octokit, { owner, repo, appSlug });
    },
    metrics,
    timers: realTimers,
    now: Date.now,
    logger,
  });
}
