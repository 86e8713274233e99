import type { CheckConclusion, CheckOutput } from '../code-host/code-host.js';
import { activityMarkdown, activityText, currentActivity } from './activity.js';
import { addedLineRanges, diffAnnotations } from './diff-annotations.js';
import { oneLine, plural } from './format.js';
import type { JobView } from './job-view.js';
import { BODY_BUDGET, type BodyPart, CHECK_OUTPUT_LIMIT } from './limits.js';
import { link, MarkdownWriter, safeUrl } from './markdown.js';
import { nextSteps } from './next-steps.js';
import { checkConclusion, describeOutcome } from './outcome.js';
import type { Redactor } from './redact.js';
import { sanitizeTitle } from './sanitize.js';
import { statusSteps } from './status-comment.js';
import { attemptOverview, reflectionLine, spendFacts } from './summary.js';
import { describeTrigger } from './trigger.js';
import { whyLine } from './why.js';

/** Check run titles are one line in GitHub's lists; longer ones are cut there anyway. */
const TITLE_LENGTH = 120;

export interface CompletedCheckRun {
  conclusion: CheckConclusion;
  output: CheckOutput;
}

/** While the job runs: the current step as the title, the checklist as the summary. */
export function renderCheckRunProgress(view: JobView, redactor: Redactor): CheckOutput {
  const md = new MarkdownWriter(redactor);
  const activity = currentActivity(view);
  const title = activity ? activityText(activity) : describeOutcome(view.finished!.outcome).label;
  const now = activity ? `⏳ ${activityMarkdown(activity, md)}\n\n` : '';
  return {
    title: plainTitle(title, redactor),
    summary: md.body(
      [`${describeTrigger(view, md)}\n\n`, now, statusSteps(view, md).join('\n'), '\n\n', links(view)],
      BODY_BUDGET,
      CHECK_OUTPUT_LIMIT,
    ),
  };
}

/**
 * The finished check run: the outcome as the title, the reflection and the
 * numbers as the summary, every attempt and the final diff as the text,
 * and notices on the lines the fix added. Line numbers are those of the
 * changed files, so the annotations belong on a check run for the fix's
 * commit (they are only made for a fix).
 */
export function renderCheckRunResult(view: JobView, redactor: Redactor): CompletedCheckRun {
  const md = new MarkdownWriter(redactor);
  const finished = view.finished;
  if (!finished) return { conclusion: 'neutral', output: renderCheckRunProgress(view, redactor) };
  const outcome = describeOutcome(finished.outcome);
  const message = reflectionLine(view, 500) ?? 'Changed by selfdebug to make the command pass.';
  const annotations =
    finished.outcome === 'fixed'
      ? diffAnnotations(finished.diff, oneLine(redactor.redact(message), 500))
      : [];
  return {
    conclusion: checkConclusion(finished.outcome),
    output: {
      title: plainTitle(`${outcome.label}: ${outcome.sentence}`, redactor),
      summary: md.body(summary(view, md), BODY_BUDGET, CHECK_OUTPUT_LIMIT),
      text: md.body(text(view, md, annotations.length), BODY_BUDGET, CHECK_OUTPUT_LIMIT),
      ...(annotations.length > 0 ? { annotations } : {}),
    },
  };
}

function summary(view: JobView, md: MarkdownWriter): BodyPart[] {
  const finished = view.finished!;
  const outcome = describeOutcome(finished.outcome);
  const parts: BodyPart[] = [`${outcome.emoji} ${outcome.sentence} **Why:** ${whyLine(view, md)}\n\n`];
  if (view.reflection) parts.push(md.proseSection(view.reflection.summary), '\n\n');
  // With no conversation (a failed run), the check run is the whole report: it carries the advice too.
  const steps = view.statusCommentUrl ? [] : nextSteps(view, md);
  if (steps.length > 0)
    parts.push(`**What you could try next:**\n\n${steps.map((step) => `- ${step}`).join('\n')}\n\n`);
  const spend = spendFacts(view);
  if (spend) parts.push(`${spend}\n\n`);
  parts.push(links(view));
  return parts;
}

function text(view: JobView, md: MarkdownWriter, annotated: number): BodyPart[] {
  const parts: BodyPart[] = [`${describeTrigger(view, md)}\n\n`];
  const failed = view.reproduction?.runs.find((run) => run.exitCode !== 0);
  if (view.reproduction) {
    const runs = plural(view.reproduction.runs.length, 'run');
    parts.push(
      `**Reproduction:** ${view.reproduction.status} (${runs}${failed ? `, exit ${failed.exitCode}` : ''})\n\n`,
    );
  }
  const attempts = attemptOverview(view, md);
  if (attempts.length > 0) parts.push('### Attempts\n\n', `${attempts.join('\n')}\n\n`);
  const diff = view.finished?.diff ?? '';
  if (diff.trim() !== '') {
    const ranges = addedLineRanges(diff).length;
    const skipped = ranges - annotated;
    const note =
      annotated > 0 && skipped > 0 ? ` (${plural(skipped, 'more changed range')} not annotated)` : '';
    parts.push(`### Final diff${note}\n\n`, md.diff(diff), '\n');
  }
  return parts;
}

function links(view: JobView): string {
  const items: string[] = [];
  const pullRequest = safeUrl(view.pullRequestUrl);
  if (pullRequest) items.push(`Pull request: ${pullRequest}`);
  if (view.statusCommentUrl)
    items.push(link('Status comment with the full transcript', view.statusCommentUrl));
  return items.length === 0 ? '' : `${items.join(' · ')}\n`;
}

function plainTitle(title: string, redactor: Redactor): string {
  return sanitizeTitle(oneLine(redactor.redact(title), TITLE_LENGTH));
}
