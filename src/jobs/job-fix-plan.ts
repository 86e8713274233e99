import { appScope } from '../environment/cache-scope.js';
import { planEnvironment } from '../environment/plan-environment.js';
import type { FixPlan, FixPorts } from '../fix/index.js';
import type { EnvironmentRequest } from '../sandbox/environment.js';
import type { PreparedTask } from '../triggers/index.js';
import type { Workspace } from '../workspace/workspace.js';
import type { Delivery } from './execute-delivery.js';
import type { JobDeliveryInputs } from './job-delivery.js';
import type { OpenedJob } from './open-job.js';
import type { JobTarget } from './resolve-target.js';

/** A job's fix as the use case runs it, the ports it runs through, and what its delivery reads besides the loop. */
export interface JobFix {
  fix: FixPlan;
  /** The sandbox and model the settings name, and where preparing the environment logs. */
  ports: Pick<FixPorts<Delivery>, 'sandboxes' | 'model' | 'onProgress'>;
  delivery: JobDeliveryInputs;
}

export function planJobFix(
  job: OpenedJob,
  target: JobTarget,
  prepared: PreparedTask,
  checkout: Promise<Workspace>,
): JobFix {
  const { request, dependencies, settings, logger, reporting } = job;
  const { appConfig } = dependencies;
  const ports = {
    sandboxes: dependencies.sandboxProviderFor(settings.sandbox),
    model: dependencies.modelFor(settings.model),
    onProgress: (line: string) =>
      logger.info({ job: request.id, environment: line }, 'preparing the environment'),
  };
  const delivery: JobDeliveryInputs = {
    request,
    host: reporting.host,
    token: job.token,
    redactor: reporting.redactor,
    logger,
    target,
    prepared,
    settings: settings.repo.pull_request,
    author: { name: appConfig.commitName, email: appConfig.commitEmail },
    checkout,
  };
  const fix: FixPlan = {
    jobId: request.id,
    task: prepared.task,
    limits: settings.limits,
    prices: settings.prices,
    mode: settings.mode,
    environment: environmentFor(job, target, prepared, checkout),
    workspace: checkout.then((workspace) => workspace.dir),
    // Whatever the outcome: the delivery plan decides what a partial fix is worth.
    copyBack: 'always',
  };
  return { fix, ports, delivery };
}

/**
 * The environment the sandbox prepares, planned from the checkout once it is
 * there, in the cache scope of the installation, the repository and the
 * branch the job reads (a review round on the App's own branch is that branch).
 */
function environmentFor(
  job: OpenedJob,
  target: JobTarget,
  prepared: PreparedTask,
  checkout: Promise<Workspace>,
): Promise<EnvironmentRequest> {
  const { settings, dependencies, request } = job;
  const { repository } = request;
  const cacheScope =
    repository.id === undefined
      ? undefined
      : appScope({
          installationId: request.installationId,
          repositoryId: repository.id,
          branch: target.ref,
          defaultBranch: repository.defaultBranch,
        });
  const environment = checkout.then(async (workspace) => {
    const plan = await planEnvironment(settings.repo, prepared.derived, workspace.dir, {
      derive: dependencies.appConfig.deriveEnvironment,
      allowedImages: settings.sandbox.allowedImages,
    });
    return cacheScope ? { ...plan.request, cacheScope } : plan.request;
  });
  // Awaited by the sandbox (a provider may not ask for it); this only keeps an early failure from counting as unhandled.
  environment.catch(() => {});
  return environment;
}
