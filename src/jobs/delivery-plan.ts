import type { RepoConfig } from '../config/repo-config.js';
import type { LoopResult } from '../loop/run-loop.js';
import type { JobRequest } from '../queue/job-request.js';
import { codeBlock, type Redactor, renderCommitMessage } from '../report/index.js';
import type { RefusedEntry } from '../sandbox/sandbox.js';
import { ROUND_TRAILER } from '../workspace/selfdebug-branches.js';
import type { CommitAuthor } from '../workspace/workspace.js';
import type { JobTarget } from './resolve-target.js';

/**
 * What delivering a job's fix comes to, decided before anything is done:
 * nothing (with the reason the report shows, if any), one comment with an
 * issue's fixed scripts, or a commit pushed to the work branch and, for a
 * fix that passed, a pull request. Every text in it is already redacted.
 */
export type DeliveryPlan =
  | { kind: 'nothing'; deliveryError: string | null }
  | { kind: 'comment'; issueNumber: number; body: string }
  | { kind: 'push'; branch: string; commit: CommitPlan; pullRequest: PullRequestPlan | null };

export interface CommitPlan {
  message: string;
  author: CommitAuthor;
  /** Only the files the loop edited: never build output or anything else the command wrote. */
  files: string[];
}

/**
 * The pull request a passing fix goes to. Its title and body are rendered
 * when it opens, after the push, from the report as posted then: the body
 * links to the status and attempt comments, and the push need not wait for
 * them.
 */
export interface PullRequestPlan {
  /** The pull request the fix belongs to when the job already knows it; otherwise one is looked up by branch. */
  existing: number | null;
  titlePrefix: string;
  base: string;
  draft: boolean;
  labels: string[];
}

/** Everything the decision reads; gathered by the runner. */
export interface DeliveryInput {
  request: Pick<JobRequest, 'id' | 'trigger'>;
  loop: Pick<LoopResult, 'outcome' | 'changedFiles' | 'reflection'>;
  /** The command the job verified, for a commit message when there is no reflection. */
  command: string;
  /** The issue's scripts as fixed, when the job ran an issue's scripts rather than the repository's command. */
  scripts: readonly { path: string; content: string }[] | null;
  /** Files of the fix the copy-back left out. */
  refused: readonly RefusedEntry[];
  target: Pick<JobTarget, 'workBranch' | 'baseBranch' | 'existingPull' | 'reportTo'>;
  settings: RepoConfig['pull_request'];
  author: CommitAuthor;
  redactor: Redactor;
}

const NOTHING: DeliveryPlan = { kind: 'nothing', deliveryError: null };

/** Decides the delivery; pure, so each case is tested as a value (test/jobs/delivery-plan.test.ts). */
export function planDelivery(input: DeliveryInput): DeliveryPlan {
  const { loop, target, settings, redactor } = input;
  if (input.refused.length > 0) {
    // A fix missing one of its files is not the fix that passed: nothing is pushed, and the report says why.
    const refused = input.refused.map((entry) => `${entry.path} (${entry.reason})`).join('; ');
    return {
      kind: 'nothing',
      deliveryError: `selfdebug did not push the fix: some of its files could not be copied back safely: ${refused}`,
    };
  }
  const fixed = loop.outcome === 'fixed' && loop.changedFiles.length > 0;
  if (input.scripts !== null) {
    // An issue's own script has no home in the repository: the fix is posted, not pushed.
    if (!fixed || target.reportTo === null) return NOTHING;
    return { kind: 'comment', issueNumber: target.reportTo, body: scriptsComment(input.scripts, redactor) };
  }
  const pushAnyway = !fixed && settings.push_branch_on_failure && loop.changedFiles.length > 0;
  if (!fixed && !pushAnyway) return NOTHING;
  return {
    kind: 'push',
    branch: target.workBranch,
    commit: { message: commitMessage(input), author: input.author, files: [...loop.changedFiles] },
    pullRequest: fixed
      ? {
          existing: target.existingPull,
          titlePrefix: settings.title_prefix,
          base: target.baseBranch,
          draft: settings.draft,
          labels: [...settings.labels],
        }
      : null,
  };
}

function commitMessage({ request, loop, command, settings, redactor }: DeliveryInput): string {
  const trailers = [`Selfdebug-Job: ${request.id}`];
  if (request.trigger.kind === 'workflow-run') trailers.push(ROUND_TRAILER);
  const summary = loop.reflection?.summary ?? `fix ${command}`;
  return renderCommitMessage(summary, trailers, redactor, settings.title_prefix);
}

function scriptsComment(scripts: readonly { path: string; content: string }[], redactor: Redactor): string {
  const parts = ['The fixed script, verified in the sandbox:'];
  for (const { path, content } of scripts) parts.push(`\`${path}\`\n${codeBlock(content, languageOf(path))}`);
  return redactor.redact(parts.join('\n\n'));
}

function languageOf(path: string): string {
  if (path.endsWith('.py')) return 'python';
  return path.endsWith('.js') ? 'js' : 'sh';
}
