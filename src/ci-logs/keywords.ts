import type { AnchoredWord } from './log-lines.js';

/**
 * How the splitter decides which lines are worth reading closely, before any
 * line is split out: a few words searched over whole windows of latin1 text,
 * and a look at how each line opens. Every line `classify` can rank on its own
 * passes one of the two; lines that matter only in context (stack frames,
 * `Expected:` after a jest verdict, entries of a failure list) are read because
 * a line before them opened a follow window or a list.
 *
 * The word list is short on purpose. V8's regexp engine scans an alternation of
 * literals in about the sum of the time each literal alone takes, and a literal
 * that opens with a common character is slow: words drop their first letter
 * (`rror` for `error` and `Error`), and the two whose opening stays common are
 * searched apart, by a rarer part (ANCHORED_KEYWORDS). Measure with
 * `npm run bench excerpt` after any change.
 */
const WORDS = ['rror', 'ERR', 'Fail', 'fail', 'FAIL', 'xcept'];

export const KEYWORDS = new RegExp(WORDS.join('|'), 'g');

/**
 * Keywords whose opening characters are common (`ot `, `_te`): searched apart, by a rarer part of
 * each (see AnchoredWord). In the pattern these two cost a third of its scan; apart, a fifth of that.
 */
export const ANCHORED_KEYWORDS: readonly AnchoredWord[] = [
  { word: 'ot found', anchor: 'found' },
  { word: '_test.go:', anchor: '_test.' },
];

/**
 * Failure words that open their line: they cost nothing to check there, so
 * they stay out of the scanned list. Words that appear mid-line instead
 * (`Permission denied`, `No such file`, `returned a non-zero code`) are, in
 * practice, the last words before the step's exit, which keeps the lines
 * before it.
 */
const OPENERS = [
  'Traceback',
  'fatal',
  'Fatal',
  'FATAL',
  'panic',
  "thread '",
  'not ok',
  'Killed',
  'Segmentation fault',
  'Post job cleanup',
  'Cleaning up',
  '* What went wrong',
  // The structure other CI systems write (see ci-format.ts): read closely wherever they appear.
  'section_start:',
  'section_end:',
  'travis_fold:',
  'travis_time:',
  '$ ',
  '[Pipeline] ',
  'Exited with code',
  'CircleCI received',
  '#!/bin/bash -eo',
  '#!/bin/sh -eo',
  'The command "',
  'Too long with no output',
  'Done. Your build exited',
  'Finished: ',
  'Job succeeded',
  '^^^ +++',
  '~~~ ',
  '--- ',
  '+++ ',
  'Terminated',
  'Aborted',
  'Timeout',
  'Stage "',
  'The job ',
  // The shell's own reports (`bash: line 3:  2412 Killed  python train.py`, signals, missing commands).
  'Running with gitlab-runner',
  'Running after_script',
  'Executing "',
  'bash: ',
  'sh: ',
];
/** The openers as bytes, by their first byte: most lines' first character opens none. */
const OPENERS_BY_CHARACTER: (Uint8Array[] | undefined)[] = [];
/**
 * Their first two characters, as `first << 8 | second`: many lines open with a capital that some
 * opener shares (`T`, `S`, `C`…), and one table read spares them a comparison per opener.
 */
const OPENER_PAIRS = new Uint8Array(1 << 16);
for (const word of OPENERS) {
  const bytes = Buffer.from(word, 'latin1');
  const words = OPENERS_BY_CHARACTER[bytes[0]!] ?? [];
  words.push(bytes);
  OPENERS_BY_CHARACTER[bytes[0]!] = words;
  OPENER_PAIRS[(bytes[0]! << 8) | bytes[1]!] = 1;
}

const SPACE = 32;
const TAB = 9;
const ESCAPE = 27;

/**
 * Whether a line opens (after an Actions timestamp, blanks and colour codes)
 * with `##[`, `::`, a failure symbol (● ✕ ✖ ✗ ✘ ❌ ×; not ✓ ✔), pytest's `E `,
 * apt's `E: `, one of the OPENERS, or a `file.ext:line` place. Reads the line's
 * bytes, `bytes[start..end)`, in place; a read past the array's end is `undefined`,
 * which no test below matches.
 */
export function opensWithMarker(bytes: Uint8Array, start: number, end: number): boolean {
  let index = afterBlanksAndColours(bytes, afterActionsTimestamp(bytes, start, end), end);
  if (index >= end) return false;
  index = afterClock(bytes, index, end);
  const code = bytes[index]!;
  const next = bytes[index + 1]!;
  if (code === 58) return next === code;
  if (code === 35 && next === code) return bytes[index + 2] === 91;
  if (code === 69 /* E */ && (next === SPACE || (next === 58 && bytes[index + 2] === SPACE))) {
    return true;
  }
  // UTF-8 of U+25CF ●, U+2715–2718 ✕✖✗✘, U+274C ❌ and U+00D7 ×.
  if (code === 0xe2) {
    const third = bytes[index + 2]!;
    return (
      (next === 0x97 && third === 0x8f) ||
      (next === 0x9c && third >= 0x95 && third <= 0x98) ||
      (next === 0x9d && third === 0x8c)
    );
  }
  if (code === 0xc3) return next === 0x97;
  if (OPENER_PAIRS[((code << 8) | next) & 0xffff] === 1) {
    for (const word of OPENERS_BY_CHARACTER[code]!) if (opensWith(bytes, index, word)) return true;
  }
  return opensWithPlace(bytes, index, end);
}

/** Whether `word` stands in `bytes` at `index` (the line's end is no bound: as `startsWith` on the piece's text). */
function opensWith(bytes: Uint8Array, index: number, word: Uint8Array): boolean {
  if (index + word.length > bytes.length) return false;
  for (let offset = 0; offset < word.length; offset++)
    if (bytes[index + offset] !== word[offset]) return false;
  return true;
}

/** The first `byte` in `bytes[from..limit)`, or -1. */
function find(bytes: Uint8Array, byte: number, from: number, limit: number): number {
  for (let index = from; index < limit; index++) if (bytes[index] === byte) return index;
  return -1;
}

/** Past the timestamp Actions writes before each line (`2024-01-01T10:00:00.0000000Z `), if any. */
function afterActionsTimestamp(bytes: Uint8Array, start: number, end: number): number {
  if (end - start <= 20 || bytes[start + 4] !== 45 || bytes[start + 10] !== 84) return start;
  // The runner writes seven fractional digits, so the text usually starts at a fixed column.
  if (bytes[start + 27] === 90 && bytes[start + 28] === SPACE) return start + 29;
  const space = find(bytes, SPACE, start + 19, Math.min(end, start + 41));
  return space !== -1 ? space + 1 : start;
}

/** Past blanks, ANSI colour codes and Buildkite's timestamps, in any order. */
function afterBlanksAndColours(bytes: Uint8Array, start: number, end: number): number {
  let index = start;
  for (;;) {
    while (index < end && (bytes[index] === SPACE || bytes[index] === TAB)) index++;
    if (index >= end || bytes[index] !== ESCAPE) return index;
    const kind = bytes[index + 1];
    if (kind === 91 /* [ */) {
      index += 2;
      while (index < end && (bytes[index]! < 0x40 || bytes[index]! > 0x7e)) index++;
      index++;
    } else if (kind === 95 /* _ */) {
      // Buildkite's `ESC _bk;t=1700000000000 BEL` timestamp.
      const bell = find(bytes, 7, index, end);
      if (bell === -1) return index;
      index = bell + 1;
    } else return index;
  }
}

function isDigit(code: number | undefined): boolean {
  return code !== undefined && code >= 48 && code <= 57;
}

/**
 * Past a clock that opens a line: Jenkins' timestamper (`[2024-01-01T10:00:00.000Z] `, `10:00:00 `),
 * `[10:00:00] `, GitLab's stream tag after its timestamp (`00O `, `01E+ `). Reads a few characters only.
 */
function afterClock(bytes: Uint8Array, start: number, end: number): number {
  let index = start;
  const first = bytes[index];
  if (first === 91 /* [ */ && isDigit(bytes[index + 1])) {
    const close = find(bytes, 93 /* ] */, index, Math.min(end, index + 41));
    if (close === -1) return start;
    index = close + 1;
    if (bytes[index] === SPACE) index++;
    return index;
  }
  if (!isDigit(first) || !isDigit(bytes[index + 1])) return start;
  const third = bytes[index + 2];
  if (third === 58 /* : */ && bytes[index + 5] === 58) {
    const space = find(bytes, SPACE, index, Math.min(end, index + 17));
    return space === -1 ? start : space + 1;
  }
  if (third === 79 || third === 69 /* O E */) {
    index += 3;
    if (bytes[index] === 43 /* + */) index++;
    return bytes[index] === SPACE ? index + 1 : start;
  }
  return start;
}

/** Letters, digits, `/`, `\\`, `_` and `-`, by latin1 code: a table, as this runs on every line. */
const PATH_CHARACTERS = new Uint8Array(256);
for (const [first, last] of [
  ['a', 'z'],
  ['A', 'Z'],
  ['0', '9'],
  ['/', '/'],
  ['\\', '\\'],
  ['_', '_'],
  ['-', '-'],
]) {
  for (let code = first!.charCodeAt(0); code <= last!.charCodeAt(0); code++) PATH_CHARACTERS[code] = 1;
}

const MAX_PATH = 200;

/**
 * `path/file.ext:12:` opening a line: compilers and linters that name no error word
 * (`./main.go:12:5: undefined: foo`, `app.py:3:1: E302 …`). Reads the first word only.
 */
function opensWithPlace(bytes: Uint8Array, start: number, end: number): boolean {
  // Path characters up to the colon; most lines' first word ends at a blank or a bracket.
  const limit = Math.min(end, start + MAX_PATH + 1);
  let dot = false;
  let index = start;
  for (; index < limit; index++) {
    const code = bytes[index]!;
    if (code === 46 /* . */) dot = true;
    else if (PATH_CHARACTERS[code] !== 1) break;
  }
  if (index === start || index >= limit || bytes[index] !== 58 /* : */) return false;
  return dot && isDigit(bytes[index + 1]);
}
