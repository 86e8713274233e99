import type { JobOptions } from '../queue/job-request.js';
import type { Mention } from './parse-mention.js';

export type ParsedCommand =
  | { kind: 'job'; command: 'fix' | 'explain'; options: JobOptions }
  | { kind: 'retry' }
  | { kind: 'stop' }
  | { kind: 'help' }
  | { kind: 'invalid'; problem: string };

/** Inline options people may add: `max-attempts=3 model=gpt-4.1 timeout=300`. */
const OPTION_PARSERS: Record<string, (value: string) => Partial<JobOptions> | string> = {
  'max-attempts': (value) => {
    const number = strictInteger(value);
    return number !== null && number >= 1 && number <= 20
      ? { maxAttempts: number }
      : 'must be a whole number from 1 to 20';
  },
  timeout: (value) => {
    const number = strictInteger(value);
    return number !== null && number >= 1 && number <= 3600
      ? { timeoutSeconds: number }
      : 'must be seconds from 1 to 3600';
  },
  model: (value) =>
    /^[\w.:/-]{1,100}$/.test(value) ? { model: value } : 'must be a model name such as gpt-4.1',
};

/**
 * Reads a mention's arguments: an optional command to run in backticks
 * (``@selfdebug fix `pytest tests/test_io.py` ``) and typed options. Anything
 * it does not understand makes the whole command invalid, so nothing runs on
 * a typo; the reply then shows the help.
 */
export function parseCommand(mention: Mention): ParsedCommand {
  if (mention.kind === 'unknown') return { kind: 'invalid', problem: `"${mention.word}" is not a command` };
  const { command } = mention;
  if (command === 'help') return { kind: 'help' };
  if (command === 'retry' || command === 'stop') {
    return mention.arguments.trim() === ''
      ? { kind: command }
      : { kind: 'invalid', problem: `\`${command}\` takes no arguments` };
  }
  const options: JobOptions = {};
  let rest = mention.arguments;
  const code = /^(`+)([\s\S]+?)\1/.exec(rest.trim());
  if (code) {
    options.command = code[2]!.trim();
    rest = rest.trim().slice(code[0].length);
  }
  for (const word of rest.split(/\s+/).filter(Boolean)) {
    const [name = '', value] = word.split('=', 2);
    const parser = OPTION_PARSERS[name.toLowerCase()];
    if (!parser || value === undefined || value === '') {
      return {
        kind: 'invalid',
        problem: parser
          ? `option \`${name}\` needs a value, e.g. \`${name}=3\``
          : `\`${word}\` is not an option (options: ${Object.keys(OPTION_PARSERS)
              .map((known) => `\`${known}=…\``)
              .join(', ')}; put the command to run in backticks)`,
      };
    }
    const parsed = parser(value);
    if (typeof parsed === 'string') return { kind: 'invalid', problem: `\`${name}\` ${parsed}` };
    Object.assign(options, parsed);
  }
  if (options.command?.includes('\n')) {
    return { kind: 'invalid', problem: 'the command must fit on one line' };
  }
  return { kind: 'job', command, options };
}

function strictInteger(text: string): number | null {
  return /^\d{1,9}$/.test(text) ? Number(text) : null;
}
