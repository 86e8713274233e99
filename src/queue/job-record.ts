import { issueNumberOf, type JobRequest } from './job-request.js';
import type { JobRecord, JobResult, OpenJob } from './job-store.js';

export interface JobTimes {
  enqueuedAt: number;
  startedAt: number | null;
  finishedAt: number;
  runs: number;
}

/** The history record every adapter stores: the worker's result plus what the store knows. */
export function jobRecord(request: JobRequest, result: JobResult, times: JobTimes): JobRecord {
  return {
    ...result,
    id: request.id,
    deliveryId: request.deliveryId,
    installationId: request.installationId,
    repository: `${request.repository.owner}/${request.repository.name}`,
    issueNumber: issueNumberOf(request),
    trigger: request.trigger.kind,
    runs: times.runs,
    enqueuedAt: new Date(times.enqueuedAt).toISOString(),
    startedAt: times.startedAt === null ? null : new Date(times.startedAt).toISOString(),
    finishedAt: new Date(times.finishedAt).toISOString(),
    durationMs: times.startedAt === null ? 0 : Math.max(0, times.finishedAt - times.startedAt),
    waitMs: Math.max(0, (times.startedAt ?? times.finishedAt) - times.enqueuedAt),
  };
}

export interface OpenTimes {
  state: OpenJob['state'];
  runs: number;
  enqueuedAt: number;
  startedAt: number | null;
}

/** An unfinished job, described as every adapter lists it (JobStore.openJobs). */
export function describeOpenJob(request: JobRequest, times: OpenTimes): OpenJob {
  return {
    id: request.id,
    installationId: request.installationId,
    repository: `${request.repository.owner}/${request.repository.name}`,
    issueNumber: issueNumberOf(request),
    trigger: request.trigger.kind,
    state: times.state,
    runs: times.runs,
    enqueuedAt: new Date(times.enqueuedAt).toISOString(),
    startedAt: times.startedAt === null ? null : new Date(times.startedAt).toISOString(),
  };
}
