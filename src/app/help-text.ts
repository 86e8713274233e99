import type { CommandName } from './parse-mention.js';

export interface CommandDescription {
  name: CommandName;
  /** What follows the command word, shown in the usage column. */
  arguments: string;
  summary: string;
}

/** The commands in the order a person needs them; the help comment is rendered from this list. */
export const COMMAND_DESCRIPTIONS: readonly CommandDescription[] = [
  {
    name: 'fix',
    arguments: '[command]',
    summary:
      'Reproduce the failure in a sandbox container, let the model try fixes until the command passes, ' +
      'and open a pull request with the result.',
  },
  {
    name: 'explain',
    arguments: '[command]',
    summary: 'Reproduce the failure and explain its cause, without changing any code.',
  },
  {
    name: 'retry',
    arguments: '',
    summary: 'Run the last job on this issue or pull request again.',
  },
  {
    name: 'stop',
    arguments: '',
    summary: 'Stop the job running for this issue or pull request.',
  },
  { name: 'help', arguments: '', summary: 'Show this list.' },
];

/**
 * Marks the App's help comment so later code can find and edit it in place
 * instead of posting another one.
 */
const HELP_MARKER = '<!-- selfdebug:help -->';

/**
 * The help comment. Usages sit in inline code so the App's own comment can
 * never read as a mention of itself.
 */
export function helpText(handle: string): string {
  const rows = COMMAND_DESCRIPTIONS.map((command) => {
    const usage = `@${handle} ${command.name}${command.arguments ? ` ${command.arguments}` : ''}`;
    return `| \`${usage}\` | ${command.summary} |`;
  });
  return [
    HELP_MARKER,
    `### ${handle} commands`,
    '',
    `Mention \`@${handle}\` in a comment, followed by one of these commands:`,
    '',
    '| Command | What it does |',
    '| --- | --- |',
    ...rows,
    '',
    `Options for \`fix\` and \`explain\`: \`max-attempts=N\` (1–20), \`timeout=SECONDS\`, \`model=NAME\`. Put the command to run in backticks: \`\` @${handle} fix \`pytest tests/\` max-attempts=3 \`\`.`,
    'Only people with write access can start a job. Mentions inside code blocks or quoted lines are ignored.',
  ].join('\n');
}
