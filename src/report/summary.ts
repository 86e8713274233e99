import { attemptStatus } from './attempt-status.js';
import { costFact, formatDuration, formatUsage, oneLine, plural } from './format.js';
import { guardRefusal } from './guard-refusal.js';
import type { AttemptView, JobView } from './job-view.js';
import { link, type MarkdownWriter } from './markdown.js';
import { runStatus } from './runs.js';

/** Pieces the pull request, the final comment and the check run share. */

/** "2 attempts · 12,345 prompt + 2,345 completion tokens · $0.0123 · 4 min 12 s"; without prices, how to set them. */
export function spendFacts(view: JobView): string {
  const facts: string[] = [];
  if (view.attempts.length > 0) facts.push(plural(view.attempts.length, 'attempt'));
  const { usage, costUsd } = view.finished?.total ?? view.total;
  if (usage.totalTokens > 0) facts.push(formatUsage(usage));
  const cost = costFact(usage, costUsd);
  if (cost) facts.push(cost);
  if (view.finished) facts.push(formatDuration(view.finished.durationMs));
  return facts.join(' · ');
}

/** One list item per attempt: its analysis in a line and how it ended, linked to its comment. */
export function attemptOverview(view: JobView, md: MarkdownWriter): string[] {
  return view.attempts.map((attempt) => {
    const name = link(`Attempt ${attempt.number}`, view.attemptCommentUrls[attempt.number]);
    const analysis = attempt.proposal ? md.line(attempt.proposal.analysis, 160) : '_no proposal_';
    return `${attempt.number}. ${name}: ${analysis} → ${attemptResult(attempt, view, md)}`;
  });
}

function attemptResult(attempt: AttemptView, view: JobView, md: MarkdownWriter): string {
  const run = attempt.run ? runStatus(attempt.run.result, md) : '';
  switch (attemptStatus(attempt, view.finished !== null)) {
    case 'passed':
      return `✅ ${run}`;
    case 'failed':
    case 'deciding':
      return `❌ ${run}`;
    case 'rejected':
      return '⚠️ the edits did not apply';
    case 'refused':
      return `🛡️ ${guardRefusal(attempt, md)}`;
    case 'no-answer':
      return "⚠️ the model's answer could not be used";
    case 'stopped':
      return '⏹️ stopped before it finished';
    default:
      return '⏳ in progress';
  }
}

/** Links to the comments of a job, as Markdown list items. */
export function transcriptLinks(view: JobView): string[] {
  const links: string[] = [];
  if (view.statusCommentUrl) links.push(link('Status comment', view.statusCommentUrl));
  const attempts = view.attempts
    .filter((attempt) => view.attemptCommentUrls[attempt.number])
    .map((attempt) => link(String(attempt.number), view.attemptCommentUrls[attempt.number]));
  if (attempts.length > 0) links.push(`attempts ${attempts.join(', ')}`);
  if (view.checkRunUrl) links.push(link('check run', view.checkRunUrl));
  return links;
}

/** The reflection's summary as one plain line, for titles and annotations. */
export function reflectionLine(view: JobView, maxChars: number): string | null {
  return view.reflection ? oneLine(view.reflection.summary, maxChars) : null;
}
