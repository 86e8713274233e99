import type { PreparedTask } from '../triggers/index.js';
import type { Workspace } from '../workspace/workspace.js';
import type { OpenedJob } from './open-job.js';
import { prepareCheckout } from './prepare-checkout.js';
import type { JobTarget } from './resolve-target.js';

/**
 * The job's clone, started as the last read of planning so that it runs
 * while the container starts; the sandbox copies it in once both are ready.
 */
export function startCheckout(job: OpenedJob, target: JobTarget, prepared: PreparedTask): Promise<Workspace> {
  const { request, dependencies, settings } = job;
  const checkout = dependencies.workspaces
    .checkout({
      cloneUrl: request.repository.cloneUrl,
      sha: target.headSha,
      ref: target.ref,
      token: job.token,
    })
    .then(async (workspace) => {
      const maxRounds = settings.repo.triggers.workflow_runs.max_rounds;
      await prepareCheckout(workspace, {
        request,
        target,
        prepared,
        maxRounds,
        handle: dependencies.appConfig.handle,
      });
      return workspace;
    });
  // Awaited by the sandbox and later; this only keeps an early failure from counting as unhandled.
  checkout.catch(() => {});
  return checkout;
}
