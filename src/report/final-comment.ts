import type { LoopOutcome } from '../loop/events.js';
import { commitLink } from './commit.js';
import type { JobView } from './job-view.js';
import type { BodyPart } from './limits.js';
import { link, MarkdownWriter } from './markdown.js';
import { finalMarker } from './markers.js';
import { nextSteps } from './next-steps.js';
import { describeOutcome } from './outcome.js';
import type { Redactor } from './redact.js';
import { attemptOverview, spendFacts } from './summary.js';
import { whyLine } from './why.js';

/** Outcomes that leave no pull request behind and so deserve a comment saying what happened. */
const FINAL_COMMENT_OUTCOMES: readonly LoopOutcome[] = [
  'not-fixed',
  'declined',
  'budget-exhausted',
  'cancelled',
  'environment',
  'error',
  'flaky',
  'cannot-reproduce',
  'explained',
];

export function needsFinalComment(outcome: LoopOutcome): boolean {
  return FINAL_COMMENT_OUTCOMES.includes(outcome);
}

/**
 * The closing comment of a job that opened no pull request: the outcome
 * and its reason, what the model concluded, what each attempt tried and
 * how it ended, and what a person could try next.
 */
export function renderFinalComment(view: JobView, redactor: Redactor): string {
  const md = new MarkdownWriter(redactor);
  const finished = view.finished;
  if (!finished) {
    return md.body([`${finalMarker(view.jobId)}\n`, 'The job has not finished yet.\n']);
  }
  const outcome = describeOutcome(finished.outcome);
  const command = view.task ? ` ${md.code(view.task.command)}` : '';
  return md.body([
    `${finalMarker(view.jobId)}\n`,
    `### ${outcome.emoji} ${outcome.label}:${command}\n\n`,
    `${outcome.sentence} **Why:** ${whyLine(view, md)}\n\n`,
    ...conclusion(view, md),
    ...tried(view, md),
    ...next(view, md),
    footer(view, md),
  ]);
}

function conclusion(view: JobView, md: MarkdownWriter): BodyPart[] {
  if (!view.reflection) return [];
  const { summary, rootCause, changes, confidence, risks } = view.reflection;
  const parts: BodyPart[] = [
    '#### What the model concluded\n\n',
    md.proseSection(summary),
    `\n\n**Root cause** (confidence: ${confidence}):\n\n`,
    md.proseSection(rootCause),
    '\n\n',
  ];
  if (changes.trim() !== '') parts.push('**What was done:**\n\n', md.proseSection(changes), '\n\n');
  if (risks.length > 0) {
    parts.push(`**Open points:**\n\n${risks.map((risk) => `- ${md.line(risk, 500)}`).join('\n')}\n\n`);
  }
  return parts;
}

function tried(view: JobView, md: MarkdownWriter): string[] {
  const lines = attemptOverview(view, md);
  if (lines.length === 0) return [];
  return ['#### What was tried\n\n', `${lines.join('\n')}\n\n`];
}

function next(view: JobView, md: MarkdownWriter): string[] {
  const steps = nextSteps(view, md);
  if (steps.length === 0) return [];
  return ['#### What you could try next\n\n', `${steps.map((step) => `- ${step}`).join('\n')}\n\n`];
}

function footer(view: JobView, md: MarkdownWriter): string {
  const facts = [`job ${md.code(view.jobId, 80)}`];
  if (view.commit) facts.push(`tested on ${commitLink(view.commit, md)}`);
  const spend = spendFacts(view);
  if (spend) facts.push(spend);
  if (view.statusCommentUrl) facts.push(link('status', view.statusCommentUrl));
  return `<sub>${facts.join(' · ')}</sub>\n`;
}
