import type { CiRun, CiRuns } from '../../ci-verdict/ci-verdict.js';
import type { CiHost } from '../../code-host/code-host.js';
import { GitHubNotFoundError } from '../../errors/index.js';
import { GitHubCodeHost } from './github-code-host.js';
import type { GitHubOctokit } from './octokit.js';

type Repository = { owner: string; repo: string };

const PAGE_SIZE = 100;

/** The GitHub adapter with what following a fix's CI needs (docs/ci-verdict.md). */
export class GitHubCiHost extends GitHubCodeHost implements CiHost {
  ciRuns(headSha: string): Promise<CiRuns> {
    return listCiRuns(this.octokit, this.repository, headSha);
  }

  amendComment(commentId: number, edit: (body: string) => string): Promise<boolean> {
    return amendComment(this.octokit, this.repository, commentId, edit);
  }

  amendPullRequestBody(number: number, edit: (body: string) => string): Promise<void> {
    return amendPullRequestBody(this.octokit, this.repository, number, edit);
  }
}

/**
 * The workflow runs of one commit (GitHub lists the latest attempt of each
 * run) and the number of active workflows, which tells a repository without
 * CI from one whose runs have not started yet.
 */
async function listCiRuns(octokit: GitHubOctokit, repository: Repository, headSha: string): Promise<CiRuns> {
  const runs = await octokit.paginate(octokit.rest.actions.listWorkflowRunsForRepo, {
    ...repository,
    head_sha: headSha,
    per_page: PAGE_SIZE,
  });
  const workflows = await octokit.paginate(octokit.rest.actions.listRepoWorkflows, {
    ...repository,
    per_page: PAGE_SIZE,
  });
  return {
    runs: runs.map(
      (run): CiRun => ({
        id: run.id,
        name: run.name ?? run.path,
        url: run.html_url,
        status: run.status ?? 'queued',
        conclusion: run.conclusion,
      }),
    ),
    activeWorkflows: workflows.filter((workflow) => workflow.state === 'active').length,
  };
}

/** Reads a comment, edits its text, writes it back (unchanged text is not written); false when it is gone. */
async function amendComment(
  octokit: GitHubOctokit,
  repository: Repository,
  commentId: number,
  edit: (body: string) => string,
): Promise<boolean> {
  try {
    const { data } = await octokit.rest.issues.getComment({ ...repository, comment_id: commentId });
    const body = edit(data.body ?? '');
    if (body !== data.body)
      await octokit.rest.issues.updateComment({ ...repository, comment_id: commentId, body });
    return true;
  } catch (error) {
    if (error instanceof GitHubNotFoundError) return false;
    throw error;
  }
}

/** Reads a pull request's body, edits it, writes it back (unchanged text is not written). */
async function amendPullRequestBody(
  octokit: GitHubOctokit,
  repository: Repository,
  number: number,
  edit: (body: string) => string,
): Promise<void> {
  const { data } = await octokit.rest.pulls.get({ ...repository, pull_number: number });
  const body = edit(data.body ?? '');
  if (body !== data.body) await octokit.rest.pulls.update({ ...repository, pull_number: number, body });
}
