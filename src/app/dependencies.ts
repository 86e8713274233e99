import type { Context } from 'probot';
import type { CodeHost } from '../code-host/code-host.js';
import type { PushedFix } from '../jobs/ci-verdict-follower.js';
import type { CostCeilingCheck } from '../queue/cost-ceiling.js';
import type { JobQueue } from '../queue/job-request.js';

/** The repository's `.github/selfdebug.yml` as far as handlers need it. */
export interface HandlerRepoConfig {
  allowedUsers: readonly string[];
  mentions: boolean;
  reviews: boolean;
  workflowRuns: {
    enabled: boolean;
    workflows: readonly string[];
    branches: readonly string[];
    maxRounds: number;
  };
}

export type RepoConfigResult = { ok: true; config: HandlerRepoConfig } | { ok: false; message: string };

/** What the webhook handlers need; the composition root (src/index.ts) builds it once. */
export interface AppDependencies {
  handle: string;
  queue: JobQueue;
  codeHostFor: (context: Context) => CodeHost;
  repoConfigFor: (context: Context) => Promise<RepoConfigResult>;
  /** Called when a push may have changed a configuration that `repoConfigFor` caches. */
  forgetRepoConfig?: (owner: string, repo?: string) => void;
  newJobId: () => string;
  now: () => Date;
  /** The operator's per-installation cost ceiling; absent or null, none. */
  costCeiling?: CostCeilingCheck | null;
  /**
   * Told of each completed workflow run, or other app's check suite, on one of the App's branches
   * (docs/ci-verdict.md); absent, CI is not followed.
   */
  ciVerdicts?: { runCompleted(fix: PushedFix): Promise<void> };
}
