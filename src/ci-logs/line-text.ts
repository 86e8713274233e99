import { decodeLine } from './log-lines.js';

// Called as `charCodeAt.call(text, i)`: see "String methods" in docs/ci-logs.md for why.
const { charCodeAt } = String.prototype;

/**
 * A raw log line as a reader wants it. `stripLine` drops the Actions
 * timestamp and ANSI colour and cursor codes and leaves the text latin1,
 * which is all classification needs; `showLine` decodes the UTF-8, removes
 * other control characters and cuts long lines, only for lines being kept.
 */
const MAX_SHOWN_CHARACTERS = 400;

// `2024-01-01T00:00:00.0000000Z ` — the Actions and Azure runners' prefix on every line they write;
// GitLab's adds a stream tag (`00O `, `01E+ `). Then the clocks other tools print: Jenkins' timestamper
// (`[2024-01-01T00:00:00.000Z] `, `10:00:00 `), `[10:00:00] `, logging's `2024-01-01 10:00:00,123 `.
// `dddd-dd-ddTdd:dd:dd.dddddddZ ` is read by hand, column by column: it opens every line of such a log,
// and a regexp match there cost an allocation per line.
const RUNNER_TIMESTAMP_LENGTH = 29;
/** By column: the character the prefix has there, or DIGIT. One indexed read a column, as this runs on many lines. */
const DIGIT = 0;
const RUNNER_COLUMNS = Uint8Array.from('dddd-dd-ddTdd:dd:dd.dddddddZ ', (character) =>
  character === 'd' ? DIGIT : charCodeAt.call(character, 0),
);
/** The prefix's separator columns, the most telling last (`Z `, `.`), then its digits' columns. */
const RUNNER_SEPARATORS = Uint8Array.of(27, 28, 19, 13, 16, 7, 4, 10);
const RUNNER_DIGITS = Uint8Array.from(
  Array.from(RUNNER_COLUMNS.keys()).filter((column) => RUNNER_COLUMNS[column] === DIGIT),
);
const TIMESTAMP =
  /^\uFEFF?(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)? ?(?:\d\d[OE]\+? )?|\[\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\] ?|\[?\d\d:\d\d:\d\d(?:[.,]\d+)?\]? )/;
// CSI sequences (colours, cursor moves), OSC sequences (titles, links), APC sequences (Buildkite's
// `ESC _bk;t=… BEL` timestamps) and lone two-byte escapes.
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing escape sequences is the point.
const ESCAPES = /\x1b(?:\[[0-?]*[ -/]*[@-~]|[\]_][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g;
// Controls other than tab; a NUL in test output would otherwise reach the prompt.
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/;
const CONTROLS = new RegExp(CONTROL.source, 'g');

export function stripLine(raw: string): string {
  let text = raw;
  // Buildkite's timestamp is an escape sequence: escapes go first when one opens the line.
  if (charCodeAt.call(text, 0) === 27) text = text.replace(ESCAPES, '');
  // The runners' own prefix (`dddd-dd-ddT`) most often, then other clocks (a digit, or `[` and a digit).
  const first = charCodeAt.call(text, 0);
  if (text.length >= 20 && charCodeAt.call(text, 4) === 45 && charCodeAt.call(text, 10) === 84) {
    text = text.slice(
      isRunnerTimestamp(text) ? RUNNER_TIMESTAMP_LENGTH : (TIMESTAMP.exec(text)?.[0].length ?? 0),
    );
  } else if (text.length >= 9 && (isDigit(first) || (first === 91 && isDigit(charCodeAt.call(text, 1))))) {
    text = text.slice(TIMESTAMP.exec(text)?.[0].length ?? 0);
  }
  if (text.includes('\x1b')) text = text.replace(ESCAPES, '');
  return text;
}

/**
 * `stripLine(text.slice(start, end))`, where `bytes[start..end)` holds the same characters: the
 * runners' prefix, on most lines of a log that has one, is read from the bytes and sliced off in the
 * one copy the line needs.
 */
export function stripRange(text: string, bytes: Uint8Array, start: number, end: number): string {
  if (end - start < RUNNER_TIMESTAMP_LENGTH || !isRunnerTimestampAt(bytes, start))
    return stripLine(text.slice(start, end));
  const rest = text.slice(start + RUNNER_TIMESTAMP_LENGTH, end);
  return rest.includes('\x1b') ? rest.replace(ESCAPES, '') : rest;
}

/** What the excerpt shows, in a string of its own. */
export function showLine(stripped: string): string {
  let text = decodeLine(stripped);
  if (CONTROL.test(text)) text = text.replace(CONTROLS, '');
  if (text.length > MAX_SHOWN_CHARACTERS) text = `${text.slice(0, MAX_SHOWN_CHARACTERS)} […]`;
  return ownCopy(text);
}

/**
 * The text in a string of its own. A slice of a chunk keeps the whole 64 KB chunk alive,
 * and a few hundred such slices held across a large log pinned megabytes that every
 * young-generation collection copied again. (Strings under 13 characters are copied anyway.)
 */
export function ownCopy(text: string): string {
  return text.length > 12 ? ` ${text}`.slice(1) : text;
}

function isRunnerTimestamp(text: string): boolean {
  // The separators first, then the digits' columns: a line that is no such prefix fails at the first read.
  if (text.length < RUNNER_TIMESTAMP_LENGTH) return false;
  for (const column of RUNNER_SEPARATORS)
    if (charCodeAt.call(text, column) !== RUNNER_COLUMNS[column]) return false;
  for (const column of RUNNER_DIGITS) if (!isDigit(charCodeAt.call(text, column))) return false;
  return true;
}

/** `isRunnerTimestamp` over bytes, from `start`; the caller knows the line is long enough. */
function isRunnerTimestampAt(bytes: Uint8Array, start: number): boolean {
  // `dddd-dd-ddTdd:dd:dd.dddddddZ `: the separators, the most telling first, then the runs of digits.
  return (
    bytes[start + 27] === 90 &&
    bytes[start + 28] === 32 &&
    bytes[start + 19] === 46 &&
    bytes[start + 13] === 58 &&
    bytes[start + 16] === 58 &&
    bytes[start + 7] === 45 &&
    bytes[start + 4] === 45 &&
    bytes[start + 10] === 84 &&
    digitsAt(bytes, start, 4) &&
    digitsAt(bytes, start + 5, 2) &&
    digitsAt(bytes, start + 8, 2) &&
    digitsAt(bytes, start + 11, 2) &&
    digitsAt(bytes, start + 14, 2) &&
    digitsAt(bytes, start + 17, 2) &&
    digitsAt(bytes, start + 20, 7)
  );
}

function digitsAt(bytes: Uint8Array, start: number, count: number): boolean {
  for (let index = start; index < start + count; index++) {
    // Unsigned: a digit is 0–9 after subtracting `0`, anything else is larger.
    if ((bytes[index]! - 48) >>> 0 > 9) return false;
  }
  return true;
}

/** What a pattern's `\s` takes, by code: a table for latin1 (all a line holds here), the pattern above it. */
const BLANKS = Uint8Array.from({ length: 256 }, (_unused, code) =>
  /\s/.test(String.fromCharCode(code)) ? 1 : 0,
);

export function isBlank(code: number): boolean {
  return code < 256 ? BLANKS[code] === 1 : /\s/.test(String.fromCharCode(code));
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}
