/** A request as Octokit's hooks see it: the route's template in `url` (absolute on later pages), its parameters beside. */
export interface RequestOptions {
  method: string;
  url: string;
  [parameter: string]: unknown;
}

type Words = (parameters: Record<string, unknown>, repository: string) => string;

/**
 * What each request the adapter makes is doing, in a maintainer's words, for
 * the error GitHub's refusal becomes ("GitHub refused labelling #7 of
 * octo-org/app"). Keyed by Octokit's route, so every call is named in one
 * place however it is made (an endpoint method, `paginate`, Probot's config plugin).
 */
const ISSUE_ROUTES: Record<string, Words> = {
  'GET /repos/{owner}/{repo}/issues/{issue_number}/comments': (p, where) =>
    `listing the comments on #${p.issue_number} of ${where}`,
  'POST /repos/{owner}/{repo}/issues/{issue_number}/comments': (p, where) =>
    `commenting on #${p.issue_number} of ${where}`,
  'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}': (p, where) =>
    `updating comment ${p.comment_id} of ${where}`,
  'POST /repos/{owner}/{repo}/issues/{issue_number}/reactions': (p, where) =>
    `reacting to #${p.issue_number} of ${where}`,
  'POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions': (p, where) =>
    `reacting to comment ${p.comment_id} of ${where}`,
  'POST /repos/{owner}/{repo}/issues/{issue_number}/labels': (p, where) =>
    `labelling #${p.issue_number} of ${where}`,
  'GET /repos/{owner}/{repo}/collaborators/{username}/permission': (p, where) =>
    `reading ${p.username}'s permission on ${where}`,
  'GET /repos/{owner}/{repo}/branches/{branch}': (p, where) => `reading branch ${p.branch} of ${where}`,
  'GET /repos/{owner}/{repo}/contents/{path}': (p, where) =>
    p.ref === undefined ? `reading ${p.path} of ${where}` : `reading ${p.path} at ${p.ref} in ${where}`,
};

const PULL_ROUTES: Record<string, Words> = {
  'GET /repos/{owner}/{repo}/pulls': (p, where) =>
    `looking for an open pull request from ${ownBranch(p.head, p.owner)} in ${where}`,
  'POST /repos/{owner}/{repo}/pulls': (p, where) => `opening a pull request from ${p.head} in ${where}`,
  'GET /repos/{owner}/{repo}/pulls/{pull_number}': (p, where) =>
    `reading pull request #${p.pull_number} of ${where}`,
  'PATCH /repos/{owner}/{repo}/pulls/{pull_number}': (p, where) =>
    `updating pull request #${p.pull_number} of ${where}`,
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/files': (p, where) =>
    `listing the files of pull request #${p.pull_number} of ${where}`,
  'POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews': (p, where) =>
    `reviewing pull request #${p.pull_number} of ${where}`,
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/comments': (p) =>
    `listing the comments of review ${p.review_id} on #${p.pull_number}`,
};

const RUN_ROUTES: Record<string, Words> = {
  'POST /repos/{owner}/{repo}/check-runs': (p, where) => `creating check run "${p.name}" on ${where}`,
  'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}': (p, where) =>
    // The follow-up requests of a long check run carry nothing but more annotations.
    p.status === undefined && p.conclusion === undefined && p.output !== undefined
      ? `adding annotations to check run ${p.check_run_id} on ${where}`
      : `updating check run ${p.check_run_id} on ${where}`,
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}': (p, where) =>
    `reading workflow run ${p.run_id} of ${where}`,
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs': (p, where) =>
    `listing the jobs of workflow run ${p.run_id} in ${where}`,
  'GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs': (p, where) =>
    `downloading the log of job ${p.job_id} in ${where}`,
};

/** The three tables, one for each part of the API the adapter calls. */
const ROUTES: Record<string, Words> = { ...ISSUE_ROUTES, ...PULL_ROUTES, ...RUN_ROUTES };

/** The App looks for its own branches as `owner:branch`; a fork's head keeps its owner. */
function ownBranch(head: unknown, owner: unknown): string {
  const text = String(head);
  return text.startsWith(`${String(owner)}:`) ? text.slice(String(owner).length + 1) : text;
}

/**
 * What `options` was doing. A route not named above, or a later page of a
 * listing (whose URL is GitHub's absolute `next` link), is named by its
 * method and URL.
 */
export function describeRequest(options: RequestOptions): string {
  const words = ROUTES[`${options.method} ${options.url}`];
  if (words === undefined) return `requesting ${options.method} ${options.url}`;
  return words(options, `${String(options.owner)}/${String(options.repo)}`);
}
