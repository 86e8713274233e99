import type { Context } from 'probot';
import { ACTIONS_APP_SLUG } from '../ci-verdict/ci-verdict.js';
import { isOwnBranch } from '../workspace/selfdebug-branches.js';
import type { AppDependencies } from './dependencies.js';

/**
 * A check suite on one of the App's own branches completed: another app's
 * CI (one that reports through checks, not GitHub Actions) may have
 * finished the verdict on a fix the App pushed, so its commit is handed to
 * the follower, which asks GitHub again (docs/ci-verdict.md). GitHub Actions'
 * suites are left to their `workflow_run` events, and the App's own suite
 * holds only its own check runs. Whatever the suite's conclusion, nothing
 * else happens here: a new round starts only from a failed workflow run,
 * whose log it reads.
 */
export async function handleCheckSuite(
  context: Context<'check_suite.completed'>,
  dependencies: AppDependencies,
): Promise<void> {
  const { check_suite: suite, repository, installation } = context.payload;
  if (!isOwnBranch(suite.head_branch ?? '')) return;
  const app = suite.app?.slug?.toLowerCase() ?? '';
  if (app === ACTIONS_APP_SLUG || app === dependencies.handle.toLowerCase()) return;
  await dependencies.ciVerdicts?.runCompleted({
    installationId: installation?.id ?? 0,
    repository: repository.full_name,
    sha: suite.head_sha,
  });
}
