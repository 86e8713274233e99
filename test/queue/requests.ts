import type { JobRequest, JobTrigger } from '../../src/jobs/job-request.js';

let counter = 0;

/** A mention request on `issueNumber` of octo/repo, each with its own id, delivery and dedupe key. */
export function mention(issueNumber = 7, overrides: Partial<JobRequest> = {}): JobRequest {
  counter++;
  const id = `job-${process.pid}-${counter}`;
  return {
    id,
    deliveryId: `delivery-${id}`,
    dedupeKey: `comment:${id}`,
    installationId: 1,
    repository: {
      owner: 'octo',
      name: 'repo',
      cloneUrl: 'https://github.com/octo/repo.git',
      defaultBranch: 'main',
      private: false,
    },
    requestedBy: 'octocat',
    headSha: null,
    baseBranch: 'main',
    trigger: {
      kind: 'mention',
      command: 'fix',
      issueNumber,
      isPullRequest: false,
      commentId: counter,
      text: 'fix it',
      scriptBlocks: [],
    },
    options: {},
    createdAt: new Date().toISOString(),
    ...overrides,
  };
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
