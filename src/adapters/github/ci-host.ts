import { ACTIONS_APP_SLUG, type CiRun, type CiRuns, type CiSuite } from '../../ci-verdict/ci-verdict.js';
import type { CiHost } from '../../code-host/code-host.js';
import { GitHubNotFoundError } from '../../errors/index.js';
import { GitHubCodeHost, type GitHubCodeHostOptions } from './github-code-host.js';
import type { GitHubOctokit } from './octokit.js';

type Repository = { owner: string; repo: string };

const PAGE_SIZE = 100;

export interface GitHubCiHostOptions extends GitHubCodeHostOptions {
  /**
   * The App's slug (the handle people mention): its own suite holds its
   * check runs, never CI. Unset (the Action, whose workflow token may not
   * read checks, and which judges workflow runs only), no suite is listed.
   */
  appSlug?: string;
}

/** The GitHub adapter with what following a fix's CI needs (docs/ci-verdict.md). */
export class GitHubCiHost extends GitHubCodeHost implements CiHost {
  private readonly notCi: Set<string> | null;

  constructor(octokit: GitHubOctokit, options: GitHubCiHostOptions) {
    super(octokit, options);
    const { appSlug } = options;
    this.notCi = appSlug === undefined ? null : new Set([ACTIONS_APP_SLUG, appSlug.toLowerCase()]);
  }

  async ciRuns(headSha: string): Promise<CiRuns> {
    const [runs, suites] = await Promise.all([
      listCiRuns(this.octokit, this.repository, headSha),
      this.notCi === null ? [] : listCiSuites(this.octokit, this.repository, headSha, this.notCi),
    ]);
    return { ...runs, suites };
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
async function listCiRuns(
  octokit: GitHubOctokit,
  repository: Repository,
  headSha: string,
): Promise<Omit<CiRuns, 'suites'>> {
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

/**
 * The check suites of one commit but those of the apps `notCi` names (by
 * slug, lower case), linked to the commit's checks page, where a person sees
 * the suite's runs.
 */
async function listCiSuites(
  octokit: GitHubOctokit,
  repository: Repository,
  headSha: string,
  notCi: ReadonlySet<string>,
): Promise<CiSuite[]> {
  const suites = await octokit.paginate(octokit.rest.checks.listSuitesForRef, {
    ...repository,
    ref: headSha,
    per_page: PAGE_SIZE,
  });
  const ci = suites.filter((suite) => !notCi.has((suite.app?.slug ?? '').toLowerCase()));
  return ci.map((suite) => ({
    id: suite.id,
    name: suite.app?.name ?? `check suite ${suite.id}`,
    url: `${suite.repository.html_url}/commit/${suite.head_sha}/checks?check_suite_id=${suite.id}`,
    status: suite.status ?? 'queued',
    conclusion: suite.conclusion,
    checkRuns: suite.latest_check_runs_count,
  }));
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
