import type { JobRequest, JobTrigger } from '../../src/queue/job-request.js';
import { jobRequest, mentionTrigger } from '../fakes/job-requests.js';

let counter = 0;

/** A mention request on `issueNumber` of octo/repo, each with its own id, delivery and dedupe key. */
export function mention(issueNumber = 7, overrides: Partial<JobRequest> = {}): JobRequest {
  counter++;
  return jobRequest({
    id: `job-${process.pid}-${counter}`,
    trigger: mentionTrigger({ issueNumber, commentId: counter }),
    createdAt: new Date().toISOString(),
    ...overrides,
  });
}

/** A failed-run request for `branch` at `sha`. */
export function failedRun(branch: string, sha: string, repository = 'repo'): JobRequest {
  const trigger: JobTrigger = {
    kind: 'workflow-run',
    runId: ++counter,
    runAttempt: 1,
    workflowName: 'CI',
    workflowPath: '.github/workflows/ci.yml',
    branch,
    ownPullRequest: null,
  };
  const base = mention(1);
  return {
    ...base,
    repository: { ...base.repository, name: repository },
    headSha: sha,
    baseBranch: branch,
    dedupeKey: `run:${trigger.runId}`,
    trigger,
  };
}
