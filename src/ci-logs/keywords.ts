// Called as `charCodeAt.call(text, i)`: see "String methods" in docs/ci-logs.md for why.
const { charCodeAt, startsWith } = String.prototype;

/**
 * How the splitter decides which lines are worth reading closely, before any
 * line is split out: a few words searched over whole windows of latin1 text,
 * and a look at how each line opens. Every line `classify` can rank on its own
 * passes one of the two; lines that matter only in context (stack frames,
 * `Expected:` after a jest verdict, entries of a failure list) are read because
 * a line before them opened a follow window or a list.
 *
 * The word list is short on purpose. V8's regexp engine scans a handful of
 * literal alternatives at 600 MB/s and more, but slows to under 400 MB/s
 * beyond about eight, and not monotonically: adding or dropping one word has
 * halved the speed. Words drop their first letter (`rror` for `error` and
 * `Error`) because a case class or a leading character common in timestamps
 * (`:`, `-`, digits) also slows the scan. Measure with `npm run bench excerpt`
 * after any change.
 */
const WORDS = ['rror', 'ERR', 'Fail', 'fail', 'FAIL', 'xcept', 'ot found', '_test\\.go:'];

export const KEYWORDS = new RegExp(WORDS.join('|'), 'g');

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
/** The openers by their first character: most lines' first character opens none. */
const OPENERS_BY_CHARACTER: (string[] | undefined)[] = [];
/**
 * Their first two characters, as `first << 8 | second`: many lines open with a capital that some
 * opener shares (`T`, `S`, `C`…), and one table read spares them a `startsWith` per opener.
 */
const OPENER_PAIRS = new Uint8Array(1 << 16);
for (const word of OPENERS) {
  const code = charCodeAt.call(word, 0);
  const words = OPENERS_BY_CHARACTER[code] ?? [];
  words.push(word);
  OPENERS_BY_CHARACTER[code] = words;
  OPENER_PAIRS[(code << 8) | charCodeAt.call(word, 1)] = 1;
}

const SPACE = 32;
const TAB = 9;
const ESCAPE = 27;

/**
 * Whether a line opens (after an Actions timestamp, blanks and colour codes)
 * with `##[`, `::`, a failure symbol (● ✕ ✖ ✗ ✘ ❌ ×; not ✓ ✔), pytest's `E `,
 * apt's `E: `, one of the OPENERS, or a `file.ext:line` place. Reads the latin1
 * text in place.
 */
export function opensWithMarker(text: string, start: number, end: number): boolean {
  let index = afterBlanksAndColours(text, afterActionsTimestamp(text, start, end), end);
  if (index >= end) return false;
  index = afterClock(text, index, end);
  const code = charCodeAt.call(text, index);
  const next = charCodeAt.call(text, index + 1);
  if (code === 58) return next === code;
  if (code === 35 && next === code) return charCodeAt.call(text, index + 2) === 91;
  if (
    code === 69 /* E */ &&
    (next === SPACE || (next === 58 && charCodeAt.call(text, index + 2) === SPACE))
  ) {
    return true;
  }
  // UTF-8 of U+25CF ●, U+2715–2718 ✕✖✗✘, U+274C ❌ and U+00D7 ×, read as latin1.
  if (code === 0xe2) {
    const third = charCodeAt.call(text, index + 2);
    return (
      (next === 0x97 && third === 0x8f) ||
      (next === 0x9c && third >= 0x95 && third <= 0x98) ||
      (next === 0x9d && third === 0x8c)
    );
  }
  if (code === 0xc3) return next === 0x97;
  if (OPENER_PAIRS[((code << 8) | next) & 0xffff] === 1) {
    for (const word of OPENERS_BY_CHARACTER[code]!) if (startsWith.call(text, word, index)) return true;
  }
  return opensWithPlace(text, index, end);
}

/** Past the timestamp Actions writes before each line (`2024-01-01T10:00:00.0000000Z `), if any. */
function afterActionsTimestamp(text: string, start: number, end: number): number {
  if (
    end - start <= 20 ||
    charCodeAt.call(text, start + 4) !== 45 ||
    charCodeAt.call(text, start + 10) !== 84
  )
    return start;
  // The runner writes seven fractional digits, so the text usually starts at a fixed column.
  if (charCodeAt.call(text, start + 27) === 90 && charCodeAt.call(text, start + 28) === SPACE)
    return start + 29;
  const space = text.indexOf(' ', start + 19);
  return space !== -1 && space < end && space - start <= 40 ? space + 1 : start;
}

/** Past blanks, ANSI colour codes and Buildkite's timestamps, in any order. */
function afterBlanksAndColours(text: string, start: number, end: number): number {
  let index = start;
  for (;;) {
    while (index < end && (charCodeAt.call(text, index) === SPACE || charCodeAt.call(text, index) === TAB))
      index++;
    if (index >= end || charCodeAt.call(text, index) !== ESCAPE) return index;
    const kind = charCodeAt.call(text, index + 1);
    if (kind === 91 /* [ */) {
      index += 2;
      while (index < end && (charCodeAt.call(text, index) < 0x40 || charCodeAt.call(text, index) > 0x7e))
        index++;
      index++;
    } else if (kind === 95 /* _ */) {
      // Buildkite's `ESC _bk;t=1700000000000 BEL` timestamp.
      const bell = text.indexOf('\x07', index);
      if (bell === -1 || bell >= end) return index;
      index = bell + 1;
    } else return index;
  }
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/**
 * Past a clock that opens a line: Jenkins' timestamper (`[2024-01-01T10:00:00.000Z] `, `10:00:00 `),
 * `[10:00:00] `, GitLab's stream tag after its timestamp (`00O `, `01E+ `). Reads a few characters only.
 */
function afterClock(text: string, start: number, end: number): number {
  let index = start;
  const first = charCodeAt.call(text, index);
  if (first === 91 /* [ */ && isDigit(charCodeAt.call(text, index + 1))) {
    const close = text.indexOf(']', index);
    if (close === -1 || close >= end || close - index > 40) return start;
    index = close + 1;
    if (charCodeAt.call(text, index) === SPACE) index++;
    return index;
  }
  if (!isDigit(first) || !isDigit(charCodeAt.call(text, index + 1))) return start;
  const third = charCodeAt.call(text, index + 2);
  if (third === 58 /* : */ && charCodeAt.call(text, index + 5) === 58) {
    const space = text.indexOf(' ', index);
    return space === -1 || space >= end || space - index > 16 ? start : space + 1;
  }
  if (third === 79 || third === 69 /* O E */) {
    index += 3;
    if (charCodeAt.call(text, index) === 43 /* + */) index++;
    return charCodeAt.call(text, index) === SPACE ? index + 1 : start;
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
function opensWithPlace(text: string, start: number, end: number): boolean {
  // Most lines open with a blank, a bracket or a symbol: no path, and no search for a colon.
  const opening = charCodeAt.call(text, start);
  if (PATH_CHARACTERS[opening] !== 1 && opening !== 46 /* . */) return false;
  // A native search for the colon first: most lines have none near their start, or no digit after it.
  const colon = text.indexOf(':', start);
  if (colon === -1 || colon >= end || colon - start > MAX_PATH || colon === start) return false;
  const digit = charCodeAt.call(text, colon + 1);
  if (digit < 48 || digit > 57) return false;
  let dot = false;
  for (let index = start; index < colon; index++) {
    const code = charCodeAt.call(text, index);
    if (code === 46 /* . */) dot = true;
    else if (PATH_CHARACTERS[code] !== 1) return false;
  }
  return dot;
}
