import type { ExecResult } from '../sandbox/sandbox.js';
import { formatDuration, formatNumber } from './format.js';
import type { CommandRun } from './job-view.js';
import type { BodyPart } from './limits.js';
import { details, type MarkdownWriter } from './markdown.js';

const END_EMOJI: Record<ExecResult['end'], string> = {
  exited: '',
  'timed-out': '⏱️ ',
  'oom-killed': '💥 ',
  cancelled: '⏹️ ',
};

/** "exit 1 after 2.1 s", with why the sandbox ended it when it did ("⏱️ timed out after 300 s"). */
export function runStatus(result: ExecResult, md: MarkdownWriter): string {
  const status = `exit ${result.exitCode} after ${formatDuration(result.durationMs)}`;
  if (result.end === 'exited' && !result.reason) return status;
  const reason = result.reason ?? result.end.replace('-', ' ');
  return `${status}, ${END_EMOJI[result.end]}${md.line(reason, 120)}`;
}

/** A run as one Markdown line: the command, how it ended. */
export function runLine(run: CommandRun, md: MarkdownWriter): string {
  return `${md.code(run.command)} → ${runStatus(run.result, md)}`;
}

/**
 * A run's interleaved output, collapsed. Shown as the sandbox captured it
 * (already capped there); cut further only when the body must fit.
 */
export function outputDetails(
  label: string,
  result: ExecResult,
  md: MarkdownWriter,
  { open = false } = {},
): BodyPart[] {
  const size = result.output.length;
  const facts = [size === 0 ? 'empty' : `${formatNumber(size)} characters`];
  if (result.truncated) facts.push('cut by the sandbox');
  const summary = `${md.html(label, 120)} (${facts.join(', ')})`;
  if (size === 0) return details(summary, ['_The command printed nothing._'], open);
  const note = result.truncated
    ? ['_The sandbox kept the beginning and the end of a longer output; the cut is marked inside._\n\n']
    : [];
  return details(summary, [...note, md.output(result.output)], open);
}
