import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CodeHost } from '../code-host/code-host.js';
import type { GitHubOctokit } from '../compose/action-clients.js';
import type { RepoConfig } from '../config/repo-config.js';
import { type DeliveryPlan, planDelivery, pullRequestText } from '../jobs/delivery-plan.js';
import { type DeliveryPorts, executeDelivery } from '../jobs/execute-delivery.js';
import type { LoopResult } from '../loop/run-loop.js';
import type { JobView } from '../report/job-view.js';
import type { Redactor } from '../report/redact.js';
import type { RefusedEntry, Sandbox } from '../sandbox/sandbox.js';
import { silentLogger } from '../util/logger.js';
import { copyBack } from '../workspace/copy-back.js';
import { BRANCH_PREFIX, ROUND_TRAILER } from '../workspace/selfdebug-branches.js';
import type { Workspace } from '../workspace/workspace.js';
import type { FailedRun } from './event.js';
import { moveToHead } from './head-lines.js';
import { placeable, type Suggestions, suggestionsFrom } from './suggestions.js';

/** Commits made with GITHUB_TOKEN are GitHub's Actions bot's; an App token's pushes show the App either way. */
const AUTHOR = {
  name: 'github-actions[bot]',
  email: '41898282+github-actions[bot]@users.noreply.github.com',
};

export interface DeliveryContext {
  octokit: GitHubOctokit;
  host: CodeHost;
  owner: string;
  repo: string;
  token: string;
  /** The job's name in the executor's log lines. */
  jobId: string;
  run: FailedRun;
  runUrl: string;
  config: RepoConfig;
  redactor: Redactor;
  view: JobView;
  result: LoopResult;
  sandbox: Sandbox;
  /** GITHUB_WORKSPACE: the job's own checkout, the fix's diff is against it. */
  workspace: string;
  /** A fresh checkout of the failed commit, made on first use. */
  checkout: () => Promise<Workspace>;
}

/**
 * The fix on a `selfdebug/` branch and a pull request into the branch that
 * failed, planned and carried out as the App's jobs deliver theirs
 * (planDelivery, executeDelivery). The changed files are copied from the
 * sandbox into a clean checkout, never into GITHUB_WORKSPACE, so nothing the
 * job built is pushed; files that cannot come back are left out, with a note.
 */
export async function deliverPullRequest(
  context: DeliveryContext,
): Promise<{ url: string; notes: string[] }> {
  const { run, result } = context;
  if (run.branch === '')
    throw new Error(
      'the failed run is not on a branch (a tag?), so there is nothing to open a pull request into',
    );
  const workspace = await context.checkout();
  const { refused } = await copyBack(context.sandbox, result.changedFiles, workspace.dir);
  const delivery = await executeDelivery(planFor(context, refused), portsFor(context, workspace));
  if (delivery.deliveryError !== null) throw new Error(delivery.deliveryError);
  if (delivery.pullRequestUrl === null) throw new Error('the fix changed no file that could be committed');
  const notes = refused.map((entry) => `Left out ${entry.path}: ${entry.reason}`);
  return { url: delivery.pullRequestUrl, notes };
}

/** The App's plan, with the Action's branch, trailer, author and footer; files that did not come back are left out. */
function planFor(context: DeliveryContext, refused: readonly RefusedEntry[]): DeliveryPlan {
  const { run } = context;
  return planDelivery({
    loop: context.result,
    fixes: `the failure of ${run.workflowName}`,
    // Every fix the Action makes answers a failed run: an automatic round on its branch.
    trailers: [ROUND_TRAILER],
    scripts: null,
    refused,
    partialFix: 'commit-the-rest',
    target: {
      workBranch: `${BRANCH_PREFIX}run-${run.runId}-${run.runAttempt}`,
      baseBranch: run.branch,
      existingPull: null,
      reportTo: null,
    },
    settings: context.config.pull_request,
    author: AUTHOR,
    footer: `\n\nFixes the failure of ${context.runUrl} (workflow ${run.workflowName}).\n`,
    redactor: context.redactor,
  });
}

function portsFor(context: DeliveryContext, workspace: Workspace): DeliveryPorts {
  const { redactor } = context;
  return {
    host: context.host,
    workspace,
    token: context.token,
    // The Action's report is written before delivery: the body needs nothing posted later.
    pullRequestText: async (pull) => pullRequestText(pull, context.view, redactor),
    // Its report is the step summary, not comments that follow the pull request.
    movedTo: async () => {},
    // A failure comes back as the delivery's error, and fails the step with it.
    logger: silentLogger,
    redactor,
    jobId: context.jobId,
  };
}

/**
 * One review on the pull request with a suggestion block per hunk, so the
 * author applies the fix with "Commit suggestion"; GitHub refuses comments
 * on lines outside the pull request's diff, and then the whole patch goes
 * into the review's text instead.
 */
export async function deliverSuggestions(
  context: DeliveryContext,
): Promise<{ url: string; notes: string[] }> {
  const { run, result, redactor, octokit } = context;
  const pull = run.pullRequest;
  if (pull === null)
    throw new Error('`deliver: suggestions` needs a pull_request run; use `deliver: pull-request` here');
  const files = await octokit.paginate(octokit.rest.pulls.listFiles, {
    owner: context.owner,
    repo: context.repo,
    pull_number: pull.number,
    per_page: 100,
  });
  const onHead = await moveSuggestionsToHead(context, pull.headSha, suggestionsFrom(result.diff));
  const { comments, leftOver } = placeable(onHead, files);
  const intro = `selfdebug found a fix for the failure of ${context.runUrl}: ${redactor.redact(result.reflection?.summary ?? result.reason)}`;
  const rest =
    leftOver.length === 0
      ? ''
      : `\n\nOutside the lines this pull request changes, so not suggestions:\n\n${leftOver.join('\n\n')}`;
  const request = {
    owner: context.owner,
    repo: context.repo,
    pull_number: pull.number,
    commit_id: pull.headSha,
    event: 'COMMENT' as const,
  };
  try {
    const review = await octokit.rest.pulls.createReview({
      ...request,
      body: redactor.redact(`${intro}${rest}`),
      comments: comments.map((comment) => ({
        path: comment.path,
        line: comment.line,
        side: 'RIGHT',
        ...(comment.startLine < comment.line ? { start_line: comment.startLine, start_side: 'RIGHT' } : {}),
        body: redactor.redact(comment.body),
      })),
    });
    return { url: review.data.html_url, notes: [] };
  } catch (error) {
    if (!(typeof error === 'object' && error !== null && 'status' in error && error.status === 422))
      throw error;
    const review = await octokit.rest.pulls.createReview({
      ...request,
      body: redactor.redact(`${intro}\n\n\`\`\`diff\n${result.diff}\n\`\`\``),
    });
    return {
      url: review.data.html_url,
      notes: ['GitHub refused inline suggestions (lines outside the diff); the review holds the patch.'],
    };
  }
}

/**
 * A pull_request run checks out the merge of the head into the base
 * (refs/pull/N/merge), and the fix's line numbers are that commit's; review
 * comments name the head's. Same commit, same lines.
 */
async function moveSuggestionsToHead(
  context: DeliveryContext,
  headSha: string,
  suggestions: Suggestions,
): Promise<Suggestions> {
  if (context.run.sha === headSha) return suggestions;
  const paths = [...new Set(suggestions.comments.map((comment) => comment.path))];
  const files = new Map<string, { head: string | null; checkedOut: string | null }>();
  for (const path of paths) {
    files.set(path, {
      head: await context.host.fileContent(path, headSha),
      checkedOut: await readFile(join(context.workspace, path), 'utf8').catch(() => null),
    });
  }
  return moveToHead(suggestions, files);
}
