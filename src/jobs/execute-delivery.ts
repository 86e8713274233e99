import type { CodeHost } from '../code-host/code-host.js';
import { SelfdebugError } from '../errors/index.js';
import type { Redactor } from '../report/index.js';
import type { Logger } from '../util/logger.js';
import type { Workspace } from '../workspace/workspace.js';
import type { DeliveryPlan, PullRequestPlan, PullRequestText } from './delivery-plan.js';

/** What delivery did, for the report: where the fix went, or why it did not. */
export interface Delivery {
  pullRequestUrl: string | null;
  deliveryError: string | null;
  /** The fix's commit, once pushed. */
  fixSha: string | null;
}

export interface DeliveryPorts {
  host: CodeHost;
  workspace: Workspace;
  /** For the push only; it never enters the sandbox. */
  token: string;
  /**
   * A new pull request's title and body, written by the plan's pure
   * `pullRequestText` from the report: the App's once everything its report
   * shows is posted, since the body links to it and the push need not wait.
   */
  pullRequestText(plan: PullRequestPlan): Promise<PullRequestText>;
  /** Told the pull request the fix went to, so the report follows it there. */
  movedTo(pullNumber: number): Promise<void>;
  logger: Logger;
  redactor: Redactor;
  jobId: string;
}

const NONE: Delivery = { pullRequestUrl: null, deliveryError: null, fixSha: null };

/**
 * Carries out a delivery plan through the ports, deciding nothing: the one
 * place a fix is committed, pushed and opened as a pull request, for the
 * App's jobs and the Action alike (whose review of suggestions is its own).
 * A failure to push or to open the pull request is the delivery's outcome,
 * never a crash.
 */
export async function executeDelivery(plan: DeliveryPlan, ports: DeliveryPorts): Promise<Delivery> {
  if (plan.kind === 'nothing') return { ...NONE, deliveryError: plan.deliveryError };
  if (plan.kind === 'comment') {
    await ports.host.createComment(plan.issueNumber, plan.body);
    return NONE;
  }
  try {
    const { workspace } = ports;
    await workspace.createBranch(plan.branch);
    const sha = await workspace.commit(plan.commit.message, plan.commit.author, plan.commit.files);
    if (!sha) return NONE;
    await workspace.push(plan.branch, ports.token);
    if (plan.pullRequest === null) return { ...NONE, fixSha: sha };
    const pullRequestUrl = await openPullRequest(plan.branch, plan.pullRequest, ports);
    return { pullRequestUrl, deliveryError: null, fixSha: sha };
  } catch (error) {
    const message = error instanceof SelfdebugError ? error.message : String(error);
    ports.logger.warn(
      { job: ports.jobId, error: ports.redactor.redact(message) },
      'could not deliver the fix',
    );
    return { ...NONE, deliveryError: message };
  }
}

/** The pull request the branch already has (an earlier round's), or a new one; the report moves to it. */
async function openPullRequest(head: string, plan: PullRequestPlan, ports: DeliveryPorts): Promise<string> {
  const { host } = ports;
  const existing = plan.existing ?? (await host.findPullRequest(head))?.number ?? null;
  if (existing !== null) {
    const pull = await host.pullRequest(existing);
    await ports.movedTo(existing);
    return pull.url;
  }
  const { title, body } = await ports.pullRequestText(plan);
  const pull = await host.createPullRequest({
    title,
    body,
    head,
    base: plan.base,
    draft: plan.draft,
  });
  if (plan.labels.length > 0) await host.addLabels(pull.number, plan.labels);
  await ports.movedTo(pull.number);
  return pull.url;
}
