import type { RunJob } from '../../code-host/code-host.js';
import type { GitHubOctokit } from './octokit.js';

/** The jobs of a workflow run's latest attempt, each with its steps and runner, from the jobs API (all pages). */
export async function listRunJobs(
  octokit: GitHubOctokit,
  repository: { owner: string; repo: string },
  runId: number,
  pageSize: number,
): Promise<RunJob[]> {
  const jobs = await octokit.paginate(octokit.rest.actions.listJobsForWorkflowRun, {
    ...repository,
    run_id: runId,
    filter: 'latest',
    per_page: pageSize,
  });
  return jobs.map((job) => ({
    id: job.id,
    name: job.name,
    status: job.status,
    conclusion: job.conclusion,
    runnerName: job.runner_name ?? null,
    steps: (job.steps ?? []).map((step) => ({
      number: step.number,
      name: step.name,
      conclusion: step.conclusion,
    })),
  }));
}

/** The messages of a job's failure-level annotations (its check run's), where GitHub says a runner was lost. */
export async function listFailureAnnotations(
  octokit: GitHubOctokit,
  repository: { owner: string; repo: string },
  jobId: number,
): Promise<string[]> {
  const { data } = await octokit.rest.checks.listAnnotations({ ...repository, check_run_id: jobId });
  return data
    .filter((annotation) => annotation.annotation_level === 'failure')
    .map((annotation) => annotation.message ?? '');
}
