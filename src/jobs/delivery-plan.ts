import type { RepoConfig } from '../config/repo-config.js';
import type { LoopResult } from '../loop/run-loop.js';
import { TESTS_EDITED_LABEL } from '../loop/test-guard/findings.js';
import type { JobView } from '../report/index.js';
import {
  codeBlock,
  type Redactor,
  renderCommitMessage,
  renderPullRequestBody,
  renderPullRequestTitle,
} from '../report/index.js';
import type { RefusedEntry } from '../sandbox/sandbox.js';
import { type TriggerRegistry, triggers } from '../triggers/index.js';
import { ROUND_TRAILER } from '../workspace/selfdebug-branches.js';
import type { CommitAuthor } from '../workspace/workspace.js';
import type { JobTarget } from './resolve-target.js';

/**
 * What delivering a fix comes to, decided before anything is done, for the
 * App's jobs and the Action alike: nothing (with the reason the report
 * shows, if any), one comment with an issue's fixed scripts, or a commit
 * pushed to the work branch and, for a fix that passed, a pull request.
 * Every text in it is already redacted.
 */
export type DeliveryPlan =
  | { kind: 'nothing'; deliveryError: string | null }
  | { kind: 'comment'; issueNumber: number; body: string }
  | { kind: 'push'; branch: string; commit: CommitPlan; pullRequest: PullRequestPlan | null };

interface CommitPlan {
  message: string;
  author: CommitAuthor;
  /** Only the files the loop edited: never build output or anything else the command wrote. */
  files: string[];
}

/**
 * The pull request a passing fix goes to: the one the job already knows,
 * else the one its branch has, else a new one whose title and body
 * `pullRequestText` writes from these values and the report.
 */
export interface PullRequestPlan {
  /** The pull request the fix belongs to when the job already knows it; otherwise one is looked up by branch. */
  existing: number | null;
  titlePrefix: string;
  /** What the body ends with after the report ('' for the App; the Action links the run that failed). */
  footer: string;
  base: string;
  draft: boolean;
  /** Put on a new pull request. */
  labels: string[];
}

/** A new pull request's title and body, redacted. */
export interface PullRequestText {
  title: string;
  body: string;
}

/** Everything the decision reads; gathered by the App's runner or the Action. */
export interface DeliveryInput {
  loop: Pick<LoopResult, 'outcome' | 'changedFiles' | 'reflection' | 'testEdits'>;
  /** What was fixed, for the commit's subject when there is no reflection (`fix <this>`). */
  fixes: string;
  /** The commit's trailers: `jobTrailers` for the App's jobs; the Action's fixes are all rounds. */
  trailers: readonly string[];
  /** The issue's scripts as fixed, when the job ran an issue's scripts rather than the repository's command. */
  scripts: readonly { path: string; content: string }[] | null;
  /** Files of the fix the copy-back left out. */
  refused: readonly RefusedEntry[];
  /**
   * What a fix missing some of its files is worth: the App withholds it (not
   * the fix that passed; its report says why), the Action commits the rest
   * and warns in the step's log.
   */
  partialFix: 'withhold' | 'commit-the-rest';
  target: Pick<JobTarget, 'workBranch' | 'baseBranch' | 'existingPull' | 'reportTo'>;
  settings: RepoConfig['pull_request'];
  author: CommitAuthor;
  /** What a new pull request's body ends with; none for the App's. */
  footer?: string;
  redactor: Redactor;
}

const NOTHING: DeliveryPlan = { kind: 'nothing', deliveryError: null };

/** Decides the delivery; pure, so each case is tested as a value (test/jobs/delivery-plan.test.ts). */
export function planDelivery(input: DeliveryInput): DeliveryPlan {
  const withheld = withholdPartialFix(input);
  if (withheld) return withheld;
  const fixed = input.loop.outcome === 'fixed' && input.loop.changedFiles.length > 0;
  // An issue's own script has no home in the repository: the fix is posted, not pushed.
  if (input.scripts !== null) return postScripts(input, input.scripts, fixed);
  return pushFix(input, fixed);
}

/** Nothing, and why, for a fix missing files the copy-back refused when the door withholds such a fix. */
function withholdPartialFix(input: DeliveryInput): DeliveryPlan | null {
  if (input.refused.length === 0 || input.partialFix !== 'withhold') return null;
  const refused = input.refused.map((entry) => `${entry.path} (${entry.reason})`).join('; ');
  return {
    kind: 'nothing',
    deliveryError: `selfdebug did not push the fix: some of its files could not be copied back safely: ${refused}`,
  };
}

/** The fixed scripts in a comment on the issue they came from; nothing unless they were fixed. */
function postScripts(
  input: DeliveryInput,
  scripts: NonNullable<DeliveryInput['scripts']>,
  fixed: boolean,
): DeliveryPlan {
  const issueNumber = input.target.reportTo;
  if (!fixed || issueNumber === null) return NOTHING;
  return { kind: 'comment', issueNumber, body: scriptsComment(scripts, input.redactor) };
}

/** A fix that passed, with its pull request, or (push_branch_on_failure) a failed one's edits alone. */
function pushFix(input: DeliveryInput, fixed: boolean): DeliveryPlan {
  const { loop, settings } = input;
  const pushAnyway = !fixed && settings.push_branch_on_failure && loop.changedFiles.length > 0;
  if (!fixed && !pushAnyway) return NOTHING;
  return {
    kind: 'push',
    branch: input.target.workBranch,
    commit: commitPlan(input),
    pullRequest: fixed ? pullRequestPlan(input) : null,
  };
}

function commitPlan(input: DeliveryInput): CommitPlan {
  const left = new Set(input.refused.map((entry) => entry.path));
  return {
    message: commitMessage(input),
    author: input.author,
    files: input.loop.changedFiles.filter((path) => !left.has(path)),
  };
}

function pullRequestPlan({ loop, target, settings, footer, redactor }: DeliveryInput): PullRequestPlan {
  return {
    existing: target.existingPull,
    titlePrefix: settings.title_prefix,
    footer: redactor.redact(footer ?? ''),
    base: target.baseBranch,
    draft: settings.draft,
    // A fix that changes what judges it (tests: flag) is labelled so a reviewer sees it in any list.
    labels: loop.testEdits?.findings.length ? [...settings.labels, TESTS_EDITED_LABEL] : [...settings.labels],
  };
}

/**
 * An App job's trailers: its id, and the round an automatic trigger's fix
 * (a failed run's) counts as (prepareCheckout caps them).
 */
export function jobTrailers(
  request: { id: string; trigger: { kind: string } },
  registry: TriggerRegistry = triggers,
): string[] {
  const trailers = [`Selfdebug-Job: ${request.id}`];
  if (registry.moduleOf(request.trigger).automatic) trailers.push(ROUND_TRAILER);
  return trailers;
}

/**
 * A new pull request's title and body, from the report; pure. The App's body
 * links to every comment of its report, so its runner writes this once the
 * report has settled after the push (which need not wait for it).
 */
export function pullRequestText(plan: PullRequestPlan, view: JobView, redactor: Redactor): PullRequestText {
  return {
    title: renderPullRequestTitle(view, redactor, plan.titlePrefix),
    body: `${renderPullRequestBody(view, redactor)}${plan.footer}`,
  };
}

function commitMessage({ loop, fixes, trailers, settings, redactor }: DeliveryInput): string {
  const summary = loop.reflection?.summary ?? `fix ${fixes}`;
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
