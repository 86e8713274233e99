import { ConfigError } from '../errors/index.js';

/** Every command the App understands or will understand; `help` is the only one live so far. */
const COMMAND_NAMES = ['fix', 'explain', 'retry', 'stop', 'help'] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

export type Mention =
  | { kind: 'command'; command: CommandName; arguments: string }
  | { kind: 'unknown'; word: string; arguments: string };

const DEFAULT_HANDLE = 'selfdebug';

/**
 * Finds the first `@handle command arguments` in a comment body. A bare
 * mention means `help`. Returns null when the handle is not mentioned as
 * itself: `@selfdebugger` or `me@selfdebug` are other names, and mentions
 * inside code (fenced or inline) or quoted lines are someone showing or
 * citing a command, not asking for one.
 */
export function parseMention(body: string, handle: string = DEFAULT_HANDLE): Mention | null {
  const pattern = mentionPattern(handle);
  for (const line of linesOutsideCodeAndQuotes(body)) {
    const spans = inlineCodeSpans(line);
    for (const match of line.matchAll(pattern)) {
      const at = match.index;
      if (spans.some(([from, to]) => at >= from && at < to)) continue;
      return readCommand(line.slice(at + match[0].length));
    }
  }
  return null;
}

/**
 * Validates a configured handle (SELFDEBUG_HANDLE). GitHub logins are
 * letters, digits and single inner hyphens; a leading `@` is tolerated.
 */
export function parseHandle(value: string | undefined): string {
  const text = (value ?? '').trim().replace(/^@/, '');
  if (text === '') return DEFAULT_HANDLE;
  if (!/^[a-z\d](?:[a-z\d]|-(?=[a-z\d])){0,38}$/i.test(text)) {
    throw new ConfigError(
      'the environment',
      `✖ SELFDEBUG_HANDLE: "${value}" is not a GitHub login (letters, digits and inner hyphens, at most 39)`,
    );
  }
  return text;
}

function mentionPattern(handle: string): RegExp {
  // The lookbehind keeps e-mail addresses and paths out; the lookahead rejects
  // other names that start the same (`@selfdebugger`, `@selfdebug-bot`,
  // `@selfdebug[bot]`) and team mentions (`@selfdebug/reviewers`).
  // An underscore is emphasis (`_@selfdebug_`) unless a word goes on after it.
  return new RegExp(`(?<![a-z\\d@./\\-\`])@${escapeRegExp(handle)}(?![a-z\\d\\-\\[/]|_\\w)`, 'gi');
}

function readCommand(afterHandle: string): Mention {
  // Emphasis markers and a colon or comma may sit between the handle and the command: `**@selfdebug**: fix`.
  const text = afterHandle.replace(/^[*_]*[,:]?/, '').trim();
  if (text === '') return { kind: 'command', command: 'help', arguments: '' };
  const [, word = '', rest = ''] = /^(\S+)\s*([\s\S]*)$/.exec(text) ?? [];
  // `@selfdebug?` or `@selfdebug ...` is someone asking what the App can do.
  if (rest === '' && !/[\p{L}\p{N}]/u.test(word)) return { kind: 'command', command: 'help', arguments: '' };
  const lowered = word.toLowerCase().replace(/[^\p{L}\p{N}]+$/u, '');
  const command = COMMAND_NAMES.find((name) => name === lowered);
  const argumentsText = rest.trim();
  return command
    ? { kind: 'command', command, arguments: argumentsText }
    : { kind: 'unknown', word, arguments: argumentsText };
}

/**
 * Yields the lines a person typed as prose. Fences are recognised at any
 * indentation (lists indent them) and an unclosed fence runs to the end,
 * as in CommonMark.
 */
function* linesOutsideCodeAndQuotes(body: string): Generator<string> {
  let fence: { marker: string; length: number } | null = null;
  for (const line of body.split(/\r?\n/)) {
    const fenceMatch = /^\s*(`{3,}|~{3,})(.*)$/.exec(line);
    if (fence) {
      const marker = fenceMatch?.[1];
      const closes =
        marker?.[0] === fence.marker && marker.length >= fence.length && fenceMatch?.[2]?.trim() === '';
      if (closes) fence = null;
      continue;
    }
    if (/^\s*>/.test(line)) continue;
    const opening = fenceMatch?.[1];
    // A backtick fence's info string may not hold backticks; such a line is inline code instead.
    if (opening && !(opening[0] === '`' && fenceMatch?.[2]?.includes('`'))) {
      fence = { marker: opening[0]!, length: opening.length };
      continue;
    }
    yield line;
  }
}

/** [start, end) of each inline code span: a run of backticks closed by a run of the same length. */
function inlineCodeSpans(line: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  const runs = [...line.matchAll(/`+/g)];
  for (let index = 0; index < runs.length; index++) {
    const opening = runs[index]!;
    const closingIndex = runs.findIndex(
      (run, candidate) => candidate > index && run[0].length === opening[0].length,
    );
    if (closingIndex === -1) continue;
    const closing = runs[closingIndex]!;
    spans.push([opening.index, closing.index + closing[0].length]);
    index = closingIndex;
  }
  return spans;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
