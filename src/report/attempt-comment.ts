import type { Edit } from '../loop/schemas.js';
import { attemptStatus } from './attempt-status.js';
import { commitLink } from './commit.js';
import { costFact, formatCost, formatDuration, formatUsage, oneLine, plural } from './format.js';
import { guardRefusal } from './guard-refusal.js';
import type { AttemptView, JobView, ModelCall, ToolCallRecord } from './job-view.js';
import type { BodyPart } from './limits.js';
import { details, link, MarkdownWriter } from './markdown.js';
import { attemptMarker } from './markers.js';
import type { Redactor } from './redact.js';
import { outputDetails, runLine, runStatus } from './runs.js';

/**
 * One comment per attempt with its whole transcript: the model's analysis,
 * every tool call with its result, the diff or the rejected edits, the run
 * and its output, the retry decision, and what the attempt cost. Nothing
 * the model proposed or the sandbox printed is left out; only the size
 * limit may cut it, and then the cut is marked.
 */
export function renderAttemptComment(view: JobView, attemptNumber: number, redactor: Redactor): string {
  const md = new MarkdownWriter(redactor);
  const attempt = view.attempts.find((candidate) => candidate.number === attemptNumber);
  const marker = `${attemptMarker(view.jobId, attemptNumber)}\n`;
  if (!attempt) return md.body([marker, `### Attempt ${attemptNumber}\n\nThis attempt has not started.\n`]);
  return md.body([
    marker,
    `### ${attemptHeadline(view, attempt, md)}\n\n`,
    ...attemptTranscript(view, attempt, md),
    footer(view, attempt, md),
  ]);
}

/**
 * An attempt's whole transcript without heading or footer: its own comment
 * holds it, and with `report.comments: single` the status comment does.
 */
export function attemptTranscript(view: JobView, attempt: AttemptView, md: MarkdownWriter): BodyPart[] {
  return [
    ...analysis(attempt, md),
    ...toolCalls(attempt.toolCalls, md),
    ...rejectedAnswers(attempt, 'generate', md),
    ...changes(attempt, md),
    ...run(view, attempt, md),
    ...rejectedAnswers(attempt, 'retry-decision', md),
    ...decision(attempt, md),
    ...modelCalls(attempt, md),
  ];
}

/** "Attempt 2 of 3: ✅ passed, exit 0 after 395 ms"; Markdown. */
export function attemptHeadline(view: JobView, attempt: AttemptView, md: MarkdownWriter): string {
  const title = `Attempt ${attempt.number} of ${attempt.maxAttempts}`;
  const result = attempt.run ? runStatus(attempt.run.result, md) : '';
  switch (attemptStatus(attempt, view.finished !== null)) {
    case 'passed':
      return `${title}: ✅ passed, ${result}`;
    case 'failed':
      return `${title}: ❌ ${result}`;
    case 'rejected':
      return `${title}: ⚠️ the edits did not apply`;
    case 'refused':
      return `${title}: 🛡️ ${guardRefusal(attempt, md)}`;
    case 'no-answer':
      return `${title}: ⚠️ the model's answer could not be used`;
    case 'stopped':
      return `${title}: ⏹️ stopped before it finished`;
    default:
      return `${title}: ⏳ in progress`;
  }
}

function analysis(attempt: AttemptView, md: MarkdownWriter): BodyPart[] {
  if (!attempt.proposal) return [];
  return ['#### Analysis\n\n', md.proseSection(attempt.proposal.analysis), '\n\n'];
}

function toolCalls(calls: readonly ToolCallRecord[], md: MarkdownWriter): BodyPart[] {
  if (calls.length === 0) return [];
  const parts: BodyPart[] = [`#### Tool calls (${calls.length})\n\n`];
  calls.forEach((call, index) => {
    const status = call.ok ? '' : ' · ⚠️ failed';
    const summary =
      `${index + 1}. <code>${md.html(call.name, 60)}</code> ${md.html(shortArguments(call.arguments), 100)}` +
      `${status}`;
    parts.push(
      ...details(summary, [
        '**Arguments**\n\n',
        md.detail(prettyJson(call.arguments), 'json'),
        '\n\n**Result**\n\n',
        md.detail(call.result, 'text'),
      ]),
    );
  });
  return parts;
}

function changes(attempt: AttemptView, md: MarkdownWriter): BodyPart[] {
  if (attempt.rejected) {
    const problems = attempt.rejected.map((problem) => `- ${md.line(problem, 1000)}`);
    const edits = attempt.proposal?.edits ?? [];
    const [heading, lead] = attempt.guardFindings
      ? ['Edits refused', 'The test guard refused the edits (tests: protect)']
      : ['Edits rejected', 'The edits did not apply'];
    return [
      `#### ${heading}\n\n`,
      `${lead}, so nothing was written and nothing was run:\n\n`,
      `${problems.join('\n')}\n\n`,
      ...(edits.length === 0
        ? []
        : details(md.html(`Proposed edits (${edits.length})`), proposedEdits(edits, md))),
    ];
  }
  if (!attempt.applied) return [];
  const files = attempt.applied.paths.map((path) => md.code(path)).join(', ');
  if (attempt.applied.diff.trim() === '')
    return ['#### Changes\n\n', `The edits left ${files} unchanged.\n\n`];
  return ['#### Changes\n\n', `Edited ${files}:\n\n`, md.diff(attempt.applied.diff), '\n\n'];
}

function proposedEdits(edits: readonly Edit[], md: MarkdownWriter): BodyPart[] {
  return edits.flatMap((edit, index) => {
    const language = languageOf(edit.path);
    return [
      `**${index + 1}. ${md.code(edit.path)}**, ${edit.search === '' ? 'whole file' : 'search'}:\n\n`,
      ...(edit.search === '' ? [] : [md.detail(edit.search, language), '\n\nreplace with:\n\n']),
      md.detail(edit.replace, language),
      '\n\n',
    ];
  });
}

const LANGUAGES: Record<string, string> = {
  py: 'python',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  ts: 'typescript',
  sh: 'bash',
  bash: 'bash',
  rb: 'ruby',
  go: 'go',
  rs: 'rust',
  java: 'java',
  yml: 'yaml',
  yaml: 'yaml',
  json: 'json',
  toml: 'toml',
};

/** Syntax highlighting for a file's code, guessed from its extension. */
function languageOf(path: string): string {
  const extension = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase() ?? '';
  return LANGUAGES[extension] ?? '';
}

function run(view: JobView, attempt: AttemptView, md: MarkdownWriter): BodyPart[] {
  if (!attempt.run) {
    const command = view.task?.command;
    return attempt.applied && !view.finished && command
      ? ['#### Run\n\n', `⏳ Running ${md.code(command)}\n\n`]
      : [];
  }
  return [
    '#### Run\n\n',
    `${runLine(attempt.run, md)}\n\n`,
    ...outputDetails('Output', attempt.run.result, md),
  ];
}

/** Answers that stayed unusable after their repair round: what was wrong, and what the loop did instead. */
function rejectedAnswers(attempt: AttemptView, purpose: string, md: MarkdownWriter): BodyPart[] {
  const rejected = attempt.rejectedAnswers.filter((answer) => answer.purpose === purpose);
  return rejected.flatMap((answer) => [
    `#### Unusable ${md.line(answer.purpose, 40)} answer\n\n`,
    `The model's answer could not be used even after it was shown the problem; ${md.line(answer.consequence, 200)}.\n\n`,
    md.detail(answer.problem, 'text'),
    '\n\n',
    md.proseSection(answer.advice),
    '\n\n',
  ]);
}

function decision(attempt: AttemptView, md: MarkdownWriter): BodyPart[] {
  if (!attempt.decision) return [];
  const { retry, reason } = attempt.decision;
  const verdict = retry ? '🔁 **Retry:**' : '🛑 **Stop:**';
  return ['#### Retry decision\n\n', `${verdict} `, md.proseSection(reason), '\n\n'];
}

function modelCalls(attempt: AttemptView, md: MarkdownWriter): BodyPart[] {
  const calls = attempt.modelCalls;
  if (calls.length === 0) return [];
  const facts = [plural(calls.length, 'model call'), formatUsage(attempt.usage)];
  const cost = costFact(attempt.usage, attempt.costUsd);
  if (cost) facts.push(cost);
  const waited = calls.reduce((sum, call) => sum + call.durationMs, 0);
  facts.push(`${formatDuration(waited)} waiting for the model`);
  return [
    `**Model:** ${facts.join(' · ')}\n\n`,
    ...details(md.html('Model answers'), calls.flatMap(modelCall)),
  ];

  function modelCall(call: ModelCall, index: number): BodyPart[] {
    const facts = [formatUsage(call.usage), formatDuration(call.durationMs)];
    if (call.costUsd > 0) facts.push(formatCost(call.costUsd));
    const requested = call.toolCalls.map((tool) => md.code(`${tool.name} ${shortArguments(tool.arguments)}`));
    return [
      `**${index + 1}. ${md.line(call.purpose, 40)}** · ${facts.join(' · ')}\n\n`,
      ...(requested.length === 0 ? [] : [`Asked for ${requested.join(', ')}\n\n`]),
      ...(call.content === null ? [] : [md.detail(prettyJson(call.content), 'json'), '\n\n']),
    ];
  }
}

function footer(view: JobView, attempt: AttemptView, md: MarkdownWriter): string {
  const facts = [`job ${md.code(view.jobId, 80)}`, `attempt ${attempt.number}`];
  if (view.commit) facts.push(`tested on ${commitLink(view.commit, md)}`);
  if (view.statusCommentUrl) facts.unshift(link('status', view.statusCommentUrl));
  return `<sub>${facts.join(' · ')}</sub>\n`;
}

/** A tool call's arguments as `key=value` pairs, short enough for a summary line. */
function shortArguments(text: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return oneLine(text, 100);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return oneLine(text, 100);
  const pairs = Object.entries(parsed).map(
    ([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
  );
  return oneLine(pairs.join(' '), 100);
}

/** JSON indented for reading; anything else (invalid JSON is part of the transcript too) as written. */
function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
