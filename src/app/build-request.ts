import type { Context } from 'probot';
import type { JobOptions, JobRequest, JobTrigger, RepositoryInfo } from '../queue/job-request.js';
import type { AppDependencies } from './dependencies.js';

interface RepositoryPayload {
  id?: number;
  name: string;
  owner: { login: string };
  clone_url: string;
  default_branch: string;
  private: boolean;
}

function repositoryInfo(repository: RepositoryPayload): RepositoryInfo {
  return {
    ...(repository.id === undefined ? {} : { id: repository.id }),
    owner: repository.owner.login,
    name: repository.name,
    cloneUrl: repository.clone_url,
    defaultBranch: repository.default_branch,
    private: repository.private,
  };
}

/** Fills in what every job request carries from the delivery itself. */
export function jobRequest(
  context: Context,
  dependencies: AppDependencies,
  fields: {
    repository: RepositoryPayload;
    requestedBy: string;
    headSha: string | null;
    baseBranch: string;
    trigger: JobTrigger;
    options?: JobOptions;
    dedupeKey: string;
  },
): JobRequest {
  const installation = (context.payload as { installation?: { id: number } }).installation;
  return {
    id: dependencies.newJobId(),
    deliveryId: context.id,
    dedupeKey: fields.dedupeKey,
    installationId: installation?.id ?? 0,
    repository: repositoryInfo(fields.repository),
    requestedBy: fields.requestedBy,
    headSha: fields.headSha,
    baseBranch: fields.baseBranch,
    trigger: fields.trigger,
    options: fields.options ?? {},
    createdAt: dependencies.now().toISOString(),
  };
}
