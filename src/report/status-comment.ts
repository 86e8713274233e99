import type { LoopOutcome } from '../loop/events.js';
import { actionMarkdown, activityMarkdown, currentActivity } from './activity.js';
import { attemptHeadline, attemptTranscript } from './attempt-comment.js';
import { attemptStatus } from './attempt-status.js';
import { commitLink } from './commit.js';
import { environmentLines } from './environment-summary.js';
import { costFact, formatDuration, formatUsage, plural } from './format.js';
import { guardRefusal } from './guard-refusal.js';
import type { AttemptView, JobView } from './job-view.js';
import type { BodyPart } from './limits.js';
import { details, link, MarkdownWriter, safeUrl } from './markdown.js';
import { statusMarker } from './markers.js';
import { describeOutcome } from './outcome.js';
import type { Redactor } from './redact.js';
import { outputDetails, runLine, runStatus } from './runs.js';
import { describeTrigger, isExplainJob, isRevisionJob } from './trigger.js';
import { whyLine } from './why.js';

/**
 * The job's status comment, edited in place as events arrive: what started
 * it, what is happening now, a checklist of the steps (each attempt linking
 * to its own comment), and at the end the outcome with its reason, spend
 * and links. The reproduction runs live here too, collapsed, so the
 * failure that started everything is one click away; attempts each get a
 * comment of their own, or, with `report.comments: single`, a collapsed
 * section here.
 */
export function renderStatusComment(view: JobView, redactor: Redactor): string {
  const md = new MarkdownWriter(redactor);
  return md.body([
    `${statusMarker(view.jobId)}\n`,
    ...header(view, md),
    ...state(view, md),
    '#### Steps\n\n',
    statusSteps(view, md).join('\n'),
    '\n\n',
    ...spend(view),
    ...reproduction(view, md),
    ...transcripts(view, md),
    footer(view, md),
  ]);
}

function header(view: JobView, md: MarkdownWriter): string[] {
  const verb = isExplainJob(view) ? 'explaining' : 'fixing';
  const title = view.task ? `### 🤖 selfdebug: ${verb} ${md.code(view.task.command)}` : '### 🤖 selfdebug';
  const facts = [describeTrigger(view, md)];
  if (view.commit) facts.push(`tested on ${commitLink(view.commit, md)}`);
  if (view.model) facts.push(`model ${md.code(view.model, 80)}`);
  if (view.limits && !isExplainJob(view)) {
    facts.push(
      `up to ${plural(view.limits.maxAttempts, 'attempt')}, ${formatDuration(view.limits.commandTimeoutSeconds * 1000)} per run`,
    );
  }
  const notes = view.notes.map((note) => `> **Note:** ${md.line(note, 500)}\n\n`);
  return [`${title}\n\n`, `${facts.join(' · ')}\n\n`, ...notes];
}

function state(view: JobView, md: MarkdownWriter): string[] {
  const activity = currentActivity(view);
  if (activity) return [`⏳ ${activityMarkdown(activity, md)}\n\n`];
  const finished = view.finished!;
  const outcome = describeOutcome(finished.outcome);
  const lines = [
    `${outcome.emoji} **${outcome.label}.** ${outcome.sentence}\n\n`,
    `**Why:** ${whyLine(view, md)}\n\n`,
  ];
  if (view.reflection) lines.push(`> ${md.line(view.reflection.summary, 500)}\n\n`);
  const pullRequest = safeUrl(view.pullRequestUrl);
  if (pullRequest) lines.push(`**Pull request:** ${pullRequest}\n\n`);
  return lines;
}

/** The checklist: reproduce, each attempt, reflect, pull request; done steps ticked. */
export function statusSteps(view: JobView, md: MarkdownWriter): string[] {
  const lines = [reproduceStep(view, md)];
  const finished = view.finished !== null;
  for (const attempt of view.attempts) lines.push(attemptStep(view, attempt, md));
  // The reflection's summary stands above the list; here only how sure the model is.
  const reflect = isExplainJob(view) ? 'Explain' : 'Reflect';
  if (view.reflection) lines.push(`- [x] ${reflect} (confidence: ${view.reflection.confidence})`);
  else if (view.reflectionRejected) lines.push(`- [ ] ${reflect}: ⚠️ the model's answer could not be used`);
  else lines.push(`- [ ] ${reflect}${finished ? ': skipped, the job ended without a reflection' : ''}`);
  if (!isExplainJob(view)) lines.push(pullRequestStep(view, md));
  return lines;
}

function reproduceStep(view: JobView, md: MarkdownWriter): string {
  const failedSetup = view.setup.find((run) => run.result.exitCode !== 0);
  if (failedSetup) return `- [ ] Reproduce: the setup command failed, ${runLine(failedSetup, md)}`;
  const reproduction = view.reproduction;
  if (!reproduction) {
    if (!view.finished) return '- [ ] Reproduce';
    return `- [ ] Reproduce: ${view.finished.outcome === 'cancelled' ? 'cancelled' : 'did not run'}`;
  }
  const failed = reproduction.runs.find((run) => run.exitCode !== 0);
  const runs = reproduction.runs.length;
  if (reproduction.status === 'failing' && failed) {
    return `- [x] Reproduce: fails with ${runStatus(failed, md)}`;
  }
  if (reproduction.status === 'flaky' && failed) {
    const passes = reproduction.runs.filter((run) => run.exitCode === 0).length;
    return `- [x] Reproduce: flaky, passed ${passes} of ${plural(runs, 'run')}, then failed with ${runStatus(failed, md)}`;
  }
  if (isRevisionJob(view)) return '- [x] Run before the changes: passes';
  return `- [x] Reproduce: passed ${runs} of ${plural(runs, 'run')}, no failure to fix`;
}

function attemptStep(view: JobView, attempt: AttemptView, md: MarkdownWriter): string {
  const name = link(`Attempt ${attempt.number}`, view.attemptCommentUrls[attempt.number]);
  const status = attemptStatus(attempt, view.finished !== null);
  const result = attempt.run ? runStatus(attempt.run.result, md) : '';
  switch (status) {
    case 'passed':
      return `- [x] ${name}: ✅ passed, ${result}`;
    case 'failed': {
      const decision = attempt.decision;
      const next = decision ? `; ${decision.retry ? 'retry' : 'stop'}: ${md.line(decision.reason, 200)}` : '';
      return `- [x] ${name}: ❌ ${result}${next}`;
    }
    case 'rejected':
      return `- [x] ${name}: ⚠️ the edits did not apply (${plural(attempt.rejected!.length, 'problem')}), nothing was run`;
    case 'refused':
      return `- [x] ${name}: 🛡️ ${guardRefusal(attempt, md)}, nothing was run`;
    case 'no-answer':
      return `- [x] ${name}: ⚠️ the model's answer could not be used, nothing was run`;
    case 'stopped':
      return `- [ ] ${name}: stopped before it finished`;
    default: {
      const activity = currentActivity(view);
      const action = activity ? `: ${actionMarkdown(activity, md)}` : '';
      return `- [ ] **${name} of ${attempt.maxAttempts}**${action}`;
    }
  }
}

const NO_PULL_REQUEST: Record<LoopOutcome, string> = {
  fixed: '',
  explained: 'nothing was changed',
  'not-fixed': 'nothing passed',
  declined: 'nothing passed',
  'budget-exhausted': 'nothing passed',
  flaky: 'no code was changed',
  'cannot-reproduce': 'no code was changed',
  cancelled: 'the job ended early',
  environment: 'the environment needs a change first',
  error: 'the job ended early',
};

function pullRequestStep(view: JobView, md: MarkdownWriter): string {
  const url = safeUrl(view.pullRequestUrl);
  if (url) return `- [x] Pull request: ${url}`;
  const finished = view.finished;
  if (!finished) return '- [ ] Pull request';
  if (finished.outcome !== 'fixed') return `- [ ] Pull request: none, ${NO_PULL_REQUEST[finished.outcome]}`;
  if (view.deliveryError)
    return `- [ ] Pull request: ⚠️ could not be opened: ${md.line(view.deliveryError, 300)}`;
  return '- [ ] Pull request: ⏳ opening';
}

function spend(view: JobView): string[] {
  const facts: string[] = [];
  const { usage, costUsd } = view.total;
  if (usage.totalTokens > 0) facts.push(formatUsage(usage));
  const cost = costFact(usage, costUsd);
  if (cost) facts.push(cost);
  if (view.finished) facts.push(`took ${formatDuration(view.finished.durationMs)}`);
  return facts.length === 0 ? [] : [`**Spend:** ${facts.join(' · ')}\n\n`];
}

/** Setup and reproduction runs with their outputs, collapsed: the evidence behind the first step. */
function reproduction(view: JobView, md: MarkdownWriter): BodyPart[] {
  const parts: BodyPart[] = [];
  if (view.environment) {
    const lines = environmentLines(view.environment).map((line) => `- ${md.line(line, 300)}`);
    if (lines.length > 0) parts.push(`**Environment:**\n${lines.join('\n')}\n\n`);
  }
  for (const run of view.setup) {
    parts.push(`**Setup:** ${runLine(run, md)}\n\n`, ...outputDetails('Setup output', run.result, md));
  }
  const runs = view.reproduction?.runs ?? [];
  runs.forEach((result, index) => {
    const run = { command: view.task?.command ?? '', result };
    const label = runs.length === 1 ? 'Reproduction' : `Reproduction, run ${index + 1} of ${runs.length}`;
    parts.push(`**${label}:** ${runLine(run, md)}\n\n`, ...outputDetails('Output', result, md));
  });
  if (parts.length === 0) return [];
  return details(md.html('Reproduction: the runs before any change'), parts);
}

/**
 * With `report.comments: single`, every attempt's transcript, collapsed
 * (the one in progress open). The body is cut to fit GitHub's limit as any
 * other: outputs first, then diffs, tool results, prose, each marked.
 */
function transcripts(view: JobView, md: MarkdownWriter): BodyPart[] {
  if (view.comments !== 'single' || view.attempts.length === 0) return [];
  const parts: BodyPart[] = ['#### Attempts\n\n'];
  for (const attempt of view.attempts) {
    const open = view.finished === null && attempt === view.attempts.at(-1);
    const summary = md.html(attemptHeadline(view, attempt, md), 300);
    parts.push(...details(summary, attemptTranscript(view, attempt, md), open));
  }
  return parts;
}

function footer(view: JobView, md: MarkdownWriter): string {
  const facts = [`job ${md.code(view.jobId, 80)}`];
  const checkRun = safeUrl(view.checkRunUrl);
  if (checkRun) facts.push(`[check run](${checkRun})`);
  return `<sub>${facts.join(' · ')}</sub>\n`;
}
