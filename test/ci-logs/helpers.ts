import { excerptLog } from '../../src/ci-logs/index.js';
import type { LogExcerpt } from '../../src/ci-logs/select-lines.js';

/** Prefixes each line with an Actions timestamp, as the runner writes them. */
export function actionsLog(lines: string[]): string {
  return `${lines.map((line, index) => `2024-01-01T00:00:${String(index % 60).padStart(2, '0')}.0000000Z ${line}`).join('\n')}\n`;
}

/** A runner's output inside a failing Actions step, with setup noise before and cleanup after. */
export function failingStep(command: string, output: string[], exitCode = 1): string {
  return actionsLog([
    'Current runner version: 2.311.0',
    '##[group]Run actions/checkout@v4',
    'with:',
    '  repository: octo/repo',
    '##[endgroup]',
    'Syncing repository: octo/repo',
    ...Array.from({ length: 40 }, (_, index) => `remote: Counting objects: ${index}% (${index}/40)`),
    `##[group]Run ${command}`,
    `\u001b[36;1m${command}\u001b[0m`,
    'shell: /usr/bin/bash -e {0}',
    '##[endgroup]',
    ...Array.from({ length: 200 }, (_, index) => `progress line ${index} of a long and uneventful build`),
    ...output,
    `##[error]Process completed with exit code ${exitCode}.`,
    'Post job cleanup.',
    '[command]/usr/bin/git version',
    'git version 2.43.0',
    'Cleaning up orphan processes',
  ]);
}

export async function excerptOf(text: string, maxLines = 150): Promise<LogExcerpt> {
  return excerptLog(text, { maxLines });
}

/** The kept texts, for `toContain` checks on whole lines. */
export function texts(excerpt: LogExcerpt): string[] {
  return excerpt.lines.map((line) => line.text);
}
