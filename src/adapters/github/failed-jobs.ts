import type { WorkflowJob } from '../../code-host/code-host.js';
import type { GitHubOctokit } from './octokit.js';

/** The failed jobs of a workflow run's latest attempt, each with its steps, from the jobs API (all pages). */
export async function listFailedJobs(
  octokit: GitHubOctokit,
  repository: { owner: string; repo: string },
  runId: number,
  pageSize: number,
): Promise<WorkflowJob[]> {
  const jobs = await octokit.paginate(octokit.rest.actions.listJobsForWorkflowRun, {
    ...repository,
    run_id: runId,
    filter: 'latest',
    per_page: pageSize,
  });
  return jobs
    .filter((job) => job.conclusion === 'failure')
    .map((job) => ({
      id: job.id,
      name: job.name,
      conclusion: job.conclusion,
      steps: (job.steps ?? []).map((step) => ({
        number: step.number,
        name: step.name,
        conclusion: step.conclusion,
      })),
    }));
}
