import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ActionCodeHost } from '../code-host/code-host.js';
import type { RepoConfig } from '../config/repo-config.js';
import type { FixPlan } from '../fix/index.js';
import { type DeliveryPlan, planDelivery, pullRequestText } from '../jobs/delivery-plan.js';
import { type DeliveryPorts, executeDelivery } from '../jobs/execute-delivery.js';
import type { LoopResult } from '../loop/run-loop.js';
import type { JobView, Redactor } from '../report/index.js';
import type { RefusedEntry } from '../sandbox/sandbox.js';
import { actionRunBranch, actionRunTrigger } from '../triggers/index.js';
import { silentLogger } from '../util/logger.js';
import type { CopyBackReport } from '../workspace/copy-back.js';
import { ROUND_TRAILER } from '../workspace/selfdebug-branches.js';
import type { Workspace } from '../workspace/workspace.js';
import type { FailedRun } from './event.js';
import type { ActionInputs } from './inputs.js';
import { type HeadAndCheckedOut, planSuggestionReview, postSuggestionReview } from './suggestion-review.js';
import { suggestionsFrom } from './suggestions.js';

/** Commits made with GITHUB_TOKEN are GitHub's Actions bot's; an App token's pushes show the App either way. */
const AUTHOR = {
  name: 'github-actions[bot]',
  email: '41898282+github-actions[bot]@users.noreply.github.com',
};

export interface DeliveryContext {
  host: ActionCodeHost;
  token: string;
  /** The job's name in the executor's log lines. */
  jobId: string;
  run: FailedRun;
  runUrl: string;
  config: RepoConfig;
  redactor: Redactor;
  view: JobView;
  result: LoopResult;
  /** What the use case's copy-back brought into `checkout` (a pull request's delivery), and what it refused. */
  copied: CopyBackReport;
  /** GITHUB_WORKSPACE: the job's own checkout, the fix's diff is against it. */
  workspace: string;
  /** A fresh checkout of the failed commit, made on first use. */
  checkout: () => Promise<Workspace>;
}

/**
 * The fix on a `selfdebug/` branch and a pull request into the branch that
 * failed, planned and carried out as the App's jobs deliver theirs
 * (planDelivery, executeDelivery). The use case (runFixPlan) has copied the
 * changed files into a clean checkout, never into GITHUB_WORKSPACE, so
 * nothing the job built is pushed; files it refused are left out, with a note.
 */
export async function deliverPullRequest(
  context: DeliveryContext,
): Promise<{ url: string; notes: string[] }> {
  const { run } = context;
  if (run.branch === '')
    throw new Error(
      'the failed run is not on a branch (a tag?), so there is nothing to open a pull request into',
    );
  const workspace = await context.checkout();
  const { refused } = context.copied;
  const delivery = await executeDelivery(planFor(context, refused), portsFor(context, workspace));
  if (delivery.deliveryError !== null) throw new Error(delivery.deliveryError);
  if (delivery.pullRequestUrl === null) throw new Error('the fix changed no file that could be committed');
  const notes = refused.map((entry) => `Left out ${entry.path}: ${entry.reason}`);
  return { url: delivery.pullRequestUrl, notes };
}

/**
 * How a plan brings the fix back for `deliver`: a pull request's files come back through the use case's
 * copy-back, into a clean checkout of the failed commit (made only then), never into GITHUB_WORKSPACE;
 * suggestions and no delivery bring nothing back, nor does a run on no branch (no pull request opens).
 */
export function copyBackFor(
  deliver: ActionInputs['deliver'],
  run: FailedRun,
  checkout: () => Promise<Workspace>,
): Pick<FixPlan, 'copyBack' | 'copyBackInto'> {
  if (deliver !== 'pull-request' || run.branch === '') return { copyBack: 'never' };
  return { copyBack: 'when-fixed', copyBackInto: async () => (await checkout()).dir };
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
      workBranch: actionRunBranch(actionRunTrigger(run)),
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
 * author applies the fix with "Commit suggestion": what the review holds is
 * planned from what GitHub and the checkout say (planSuggestionReview), then
 * posted (postSuggestionReview).
 */
export async function deliverSuggestions(
  context: DeliveryContext,
): Promise<{ url: string; notes: string[] }> {
  const { run, result } = context;
  const pull = run.pullRequest;
  if (pull === null)
    throw new Error('`deliver: suggestions` needs a pull_request run; use `deliver: pull-request` here');
  const plan = planSuggestionReview({
    diff: result.diff,
    pull,
    files: await context.host.pullRequestFiles(pull.number),
    texts: await headAndCheckedOut(context, pull.headSha),
    summary: result.reflection?.summary ?? result.reason,
    runUrl: context.runUrl,
    redactor: context.redactor,
  });
  return postSuggestionReview(context.host, plan);
}

/**
 * A pull_request run checks out the merge of the head into the base
 * (refs/pull/N/merge), and the fix's line numbers are that commit's; review
 * comments name the head's. Same commit, same lines: nothing to read.
 */
async function headAndCheckedOut(
  context: DeliveryContext,
  headSha: string,
): Promise<HeadAndCheckedOut | null> {
  if (context.run.sha === headSha) return null;
  const { comments } = suggestionsFrom(context.result.diff);
  const paths = [...new Set(comments.map((comment) => comment.path))];
  const texts = new Map<string, { head: string | null; checkedOut: string | null }>();
  for (const path of paths) {
    texts.set(path, {
      head: await context.host.fileContent(path, headSha),
      checkedOut: await readFile(join(context.workspace, path), 'utf8').catch(() => null),
    });
  }
  return texts;
}
