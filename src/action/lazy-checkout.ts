import { tmpdir } from 'node:os';
import { actionWorkspaces } from '../compose/action-clients.js';
import type { Environment } from '../config/read-environment.js';
import type { Workspace } from '../workspace/workspace.js';
import type { FailedRun } from './event.js';
import type { RunnerContext } from './inputs.js';

/**
 * The failed commit's clone, made on first use (the rounds on its branch, a
 * delivery), removed by `dispose`: most runs need none, and a clone of a big
 * repository takes a while.
 */
export function lazyCheckout(runner: RunnerContext, failed: FailedRun, token: string, env: Environment) {
  const checkouts = actionWorkspaces({
    serverUrl: runner.GITHUB_SERVER_URL,
    parentDir: runner.RUNNER_TEMP ?? tmpdir(),
    host: env,
  });
  let workspace: Workspace | undefined;
  return {
    checkout: async (): Promise<Workspace> => {
      workspace ??= await checkouts.checkout({
        cloneUrl: `${runner.GITHUB_SERVER_URL}/${runner.GITHUB_REPOSITORY}.git`,
        sha: failed.sha,
        ...(failed.branch === '' ? {} : { ref: failed.branch }),
        token,
      });
      return workspace;
    },
    dispose: async (): Promise<void> => {
      await workspace?.dispose().catch(() => {});
    },
  };
}
