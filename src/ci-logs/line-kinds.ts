import type { LineShape } from './line-shape.js';
import { isBlank } from './line-text.js';
import { latin1 } from './log-lines.js';

// Called as `charCodeAt.call(text, i)`: see "String methods" in docs/ci-logs.md for why.
const { charCodeAt, startsWith, trimEnd } = String.prototype;

/**
 * What one line says about a failure, and how much it is worth keeping.
 *
 * The rules describe shapes shared by families of tools rather than single
 * tools: a runner's verdict next to a test name, `path:line` followed by
 * `error`, an exception type opening a message, a count of failures, a
 * leading `error:`. Every flagged line of a large log passes here, so the
 * patterns that scan a whole line wait behind cheap substring checks, and the
 * text stays latin1 (symbols such as ● are matched as their UTF-8 bytes).
 *
 * Weights: 90+ a failing test named; 70–80 an error that explains; 75 a
 * runner's failure summary; 50–60 assertion details; below 40 context.
 */
type LineKind = 'test' | 'summary' | 'error' | 'detail' | 'warning' | 'noise' | 'plain';

export interface LineClass {
  kind: LineKind;
  weight: number;
}

const of = (kind: LineKind, weight: number): LineClass => Object.freeze({ kind, weight });
const PLAIN = of('plain', 0);
const NOISE = of('noise', 0);
const FLAGGED = of('plain', 6);
const BOILERPLATE = of('noise', 2);
const WARNING = of('warning', 3);
/**
 * A compiler's `path:line:col: note: …` goes on with the diagnostic before it (gcc's `declared here`
 * under an error), whatever that one's severity: never noise on its own, never evidence either.
 */
const NOTE = of('plain', 6);
const TEST = of('test', 90);
const TEST_BANNER = of('test', 85);
/** `FAILED` alone on its line (Ant's JUnit report): the test it judges is named on the line before. */
export const BARE_VERDICT = of('test', 60);
const TASK_FAILED = of('summary', 72);
const SUMMARY_LINE = of('summary', 75);
const COUNTED = of('summary', 55);
const CLASS_FAILED = of('summary', 88);
const DIAGNOSED = of('error', 78);
const LINTED = of('error', 72);
const PLACED = of('error', 65);
const EXCEPTION_OPENED = of('error', 72);
const ERROR_LED = of('error', 70);
const SYSTEM = of('error', 70);
const PACKAGE = of('error', 62);
const MAKE = of('error', 60);
const TAGGED_ERROR = of('error', 45);
const GENERIC = of('error', 30);
const PYTEST_E = of('detail', 58);
const EXPECTED = of('detail', 58);
const GO_MESSAGE = of('detail', 75);
const TRACEBACK_OPENED = of('detail', 50);

// A test named next to its runner's verdict.
const VERDICT_FIRST =
  /^(?:(?:FAILED|ERROR)\s+\S+(?:::|\.py\b)|(?:FAIL|ERROR): \S+ \([\w.$]+\)|(?:FAIL|ERROR): test|--- FAIL: \S|FAIL\s+\S|not ok \d+|rspec \S+:\d+|Failed \S.*\[\s*[\d.]+\s*m?s\])/;
const VERDICT_LAST = /(?:\s\.\.\.\s+(?:FAIL|FAILED|ERROR)$|<<< (?:FAILURE|ERROR)!|\S\s+(?:FAILED|FAILURE)$)/;
const SYMBOLS = ['●', '✕', '×', '✗', '✖', '✘', '❌'].map(latin1);
const BULLET = new RegExp(`^(?:${SYMBOLS.join('|')})\\s+\\S`);
const CONSOLE_BULLET = latin1('● Console');
const LINT_TOTAL = latin1('✖ ');
const BANNER = /^(?:_{3,}|-{4}) \S.* (?:_{3,}|-{4})$/;
const STATUS_ONLY = /^(?:FAILED|FAILURE|FAIL|ERROR|Caused an ERROR)$/;
/**
 * pytest's verdict on one test, in its three layouts: `path::test VERDICT [ 42%]` (`-v`; the progress
 * column absent with `console_output_style=classic`, a skip's or xfail's reason before it),
 * `[ 42%] VERDICT path::test` (xdist's `-n` with `-v`, after the `[gw0]` tag) and the short test
 * summary's `VERDICT path::test - message` (`SKIPPED [1] path.py:12: reason` for skips).
 */
const PYTEST_VERDICTS = ['PASSED', 'FAILED', 'ERROR', 'SKIPPED', 'XFAIL', 'XPASS'] as const;
/** xdist's `-v` names each test as a worker starts it, alone on a line with a space after it. */
const PYTEST_STARTED = /^[\w./\\-]+\.py::.* $/;
const PYTEST_VERDICT_FIRST =
  /^(?:\[\s*\d{1,3}%\] )?(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (?:\[\d+\] )?\S+?(?:::|\.py\b)/;

// A runner's or build tool's verdict on the whole run.
const SUMMARY =
  /^(?:=+ .*\b(?:failed|errors?|FAILURES|ERRORS|short test summary info)\b.* =+|(?:Tests?|Test Suites|Test Files|Suites):?\s+.*\bfailed\b|\d+ (?:failing|failed)\b.*|BUILD (?:FAILED|FAILURE)\b.*|FAILURE: Build failed.*|\d+ tests? completed, \d+ failed.*|FAILED \((?:failures|errors)=.*|test result: FAILED.*|Failed!\s+-\s+Failed:.*|There (?:are|were) test failures.*|Failed to execute goal.*|Execution failed for task.*|\* What went wrong:|FAIL)$/;
const JUNIT_FAILED_COUNT = /\b(?:Failures|Errors|Aborted): [1-9]/;
const ZERO_COUNTS = /\b(?:Failures|Errors|failed|errors|failures): 0\b|\b0 (?:failed|failures?|errors?)\b/;
const NONZERO_COUNT =
  /\b[1-9]\d* (?:failed|failures?|errors?|failing)\b|\b(?:Failures|Errors|failed|errors|failures): [1-9]/;

// Errors that explain: a diagnostic at a place, a leading error word, an exception opening its message.
// `file.ext:12:5: error`, `file.ext(12,5): error TS…`, `file.ext:12:5 - error`: anchored on the extension's dot.
const DIAGNOSTIC =
  /\.\w{1,12}(?::\[?\d+(?:[,:]\d+)?\]?|\(\d+(?:,\d+)?\)):?\s*(?:-\s*)?(?:fatal error|error|Error)\b/;
const JAVAC_DIAGNOSTIC = /^\/?[\w./\\-]+\.\w+:\[\d+(?:,\d+)?\]/;
// `path/file.ext:12:5: message`: a compiler or linter that names no error word (go, flake8, shellcheck).
const PLACED_MESSAGE = /^[\w./\\-]+\.\w+:\d+:\d+:? \S/;
const LINT_DIAGNOSTIC = /^\d+:\d+\s+(error|warning)\s/;
const LEADING_ERROR = /^(?:error|ERROR|Error|fatal|FATAL|Fatal|panic|PANIC)(?:\[[^\]]*\])?(?::|!|\s-|\s)/;
const EXCEPTION =
  /^(?:Caused by: |=> |Uncaught |Unhandled(?: rejection)? )?(?:[\w$]+\.)*[\w$]*(?:Error|Exception|Failure|Fault|Panic)\b(?::|$|\s\[|\s+at\s)/;
const PACKAGE_MANAGER = /^(?:npm ERR!|npm error|ERR_PNPM_\w+|error An unexpected error|yarn error|E: )/;
const PACKAGE_MANAGER_NOISE = /complete log of this run|^npm ERR!\s*$|^npm error\s*$|A complete log/;
export const SYSTEM_FAILURE =
  /command not found|: not found$|No such file or directory|Permission denied|Segmentation fault|core dumped|\bKilled\b|Out of memory|OOMKilled|timed out|panicked at|failed to solve|did not complete successfully|returned a non-zero code|No matching distribution|Could not find a version|Could not resolve|Cannot find module|Unable to locate package|ModuleNotFoundError|ImportError|exceeded the maximum (?:execution )?time|maximum time limit|has been terminated|took longer than|[Tt]imeout has been exceeded|Too long with no output|operation was cancel+ed|[Cc]ancel+ation signal|interrupted by a signal|Aborted by|was cancel+ed|\bTerminated\b/;
/**
 * A part of every phrase of SYSTEM_FAILURE (`ound` of `command not found`, `ancel` of `was cancelled`…):
 * where none stands, no phrase does. Fewer alternatives and no classes, so it fails a line in about
 * 60% of the time the whole pattern takes (system-failure-parts.test.ts checks each phrase).
 */
export const SYSTEM_FAILURE_PARTS =
  /ound|such|denied|fault|dumped|Killed|memory|timed|panicked|solve|successfully|non-zero|distribution|find|locate|ImportError|exceeded|limit|erminated|longer|no output|ancel|interrupted|Aborted/;
const MAKE_FAILURE = /^make(?:\[\d+\])?: \*\*\*/;
const BUILD_TOOL_BOILERPLATE =
  /^(?:-> \[Help|\[Help \d|To see the full stack trace|Re-run Maven|For more information about the errors|After correcting the problems|mvn <args>|Please refer to|Run with --(?:stacktrace|info|debug|scan)|Get more help at|See https:\/\/docs\.gradle\.org|\* Try:)/;

// Details of an assertion.
const PYTEST_DETAIL = /^E\s+\S/;
const EXPECTATION =
  /^(?:(?:Expected|Received|Actual|expected|received|actual)(?: value| length| substring| object| string| constructor| path)?:\s|expect\(|[-+] Expected|[-+] Received|AssertionError)/;
const GO_TEST_MESSAGE = /^\S+_test\.go:\d+: /;
const TRACEBACK = /^Traceback \(most recent call last\):/;
const WARNING_WORD = /\b(?:[Ww]arning|WARN)\b/;
const GENERIC_FAILURE =
  /\b(?:error|errors|ERROR|Error|fail|failed|failure|FAILED|FAIL|Failed|exception|Exception|fatal)\b/;

/**
 * The characters a pattern's match can open with, as a table by latin1 code. Most
 * lines open with none of them, and a table lookup costs a small fraction of a regexp
 * call that fails at its first character: a dozen such calls per line were a fifth of
 * the excerpt's time on large logs. Each table must list every opening its pattern allows.
 */
function opening(characters: string): Uint8Array {
  const table = new Uint8Array(256);
  for (const character of characters) table[charCodeAt.call(character, 0)] = 1;
  return table;
}
const DIGITS = '0123456789';
const WORD = `${DIGITS}abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_`;
const OPENS_VERDICT = opening('FEnr-');
/** The verdict-last layout ends with the progress column (`%]`), a reason (`)`) or the verdict's last letter. */
const ENDS_PYTEST_VERDICT = opening(')DRLS');
const OPENS_STATUS = opening('FEC');
const OPENS_SUMMARY = opening(`=TSBFtE*${DIGITS}`);
const OPENS_BOILERPLATE = opening('-[TRFAmPGS*');
const OPENS_PLACE = opening(`${WORD}./\\-`);
const OPENS_LINT = opening(DIGITS);
const OPENS_PACKAGE = opening('nEey');
const OPENS_ERROR_WORD = opening('eEfFpP');
const OPENS_EXPECTATION = opening('ERAera-+');

/**
 * Words whose presence anywhere in a line steers the rules below, found in one pass of one pattern
 * rather than a substring search each: on a line that falls through every rule, nine such searches
 * cost twice what this pass does.
 */
const STEERING_WORDS = /Tests run:|FAIL|ERROR|<<<|_test\.go:|rror|ail|arning|WARN/g;
const COUNTS = 1;
const FAIL_WORD = 2;
const ERROR_WORD = 4;
const CHEVRONS = 8;
const GO_TEST = 16;
const RROR = 32;
const AIL = 64;
const WARNING_WORDS = 128;

/** The steering words a line holds, as a mask of the flags above. */
function wordsIn(core: string): number {
  let words = 0;
  STEERING_WORDS.lastIndex = 0;
  while (STEERING_WORDS.test(core)) {
    // The word found, told by its last characters; the search goes on from its second character.
    const end = STEERING_WORDS.lastIndex;
    const last = charCodeAt.call(core, end - 1);
    let length: number;
    if (last === 58 /* : */) {
      const counts = charCodeAt.call(core, end - 2) === 110; /* n */
      words |= counts ? COUNTS : GO_TEST;
      length = counts ? 10 : 9;
    } else if (last === 76 /* L */) {
      words |= FAIL_WORD;
      length = 4;
    } else if (last === 82 /* R */) {
      words |= ERROR_WORD;
      length = 5;
    } else if (last === 60 /* < */) {
      words |= CHEVRONS;
      length = 3;
    } else if (last === 114 /* r */) {
      words |= RROR;
      length = 4;
    } else if (last === 108 /* l */) {
      words |= AIL;
      length = 3;
    } else {
      words |= WARNING_WORDS;
      length = last === 103 /* g */ ? 6 : 4;
    }
    STEERING_WORDS.lastIndex = end - length + 1;
  }
  return words;
}

/**
 * `flagged` says the splitter's first look picked the line (see keywords.ts). Lines read
 * only as context (frames, quoted source, list details) skip the two whole-line searches.
 */
export function classify(shape: LineShape, flagged = true): LineClass {
  const { core, tag } = shape;
  if (core.length === 0) return PLAIN;
  const first = charCodeAt.call(core, 0);
  const words = wordsIn(core);
  const counts = (words & COUNTS) !== 0;
  if (tag === 'INFO' || tag === 'WARNING' || tag === 'WARN') {
    if (counts) return junitCounts(core);
    if (tag !== 'INFO') return WARNING;
  }
  if (OPENS_BOILERPLATE[first] === 1 && BUILD_TOOL_BOILERPLATE.test(core)) return BOILERPLATE;
  const pytest = pytestVerdict(core, first);
  if (pytest !== undefined) return pytest;
  const verdictLast = (words & (FAIL_WORD | ERROR_WORD | CHEVRONS)) !== 0 && VERDICT_LAST.test(core);
  if (verdictLast || (OPENS_VERDICT[first] === 1 && VERDICT_FIRST.test(core))) {
    if (startsWith.call(core, '> Task ') || startsWith.call(core, 'BUILD ')) return TASK_FAILED;
    if (counts) return junitCounts(core);
    return TEST;
  }
  if (first > 0x7f && BULLET.test(core)) {
    if (startsWith.call(core, CONSOLE_BULLET)) return PLAIN;
    return startsWith.call(core, LINT_TOTAL) ? SUMMARY_LINE : TEST;
  }
  if ((first === 95 || first === 45) && BANNER.test(core)) return TEST_BANNER;
  if (OPENS_STATUS[first] === 1 && STATUS_ONLY.test(core)) return BARE_VERDICT;
  if (counts) return junitCounts(core);
  if (OPENS_SUMMARY[first] === 1 && SUMMARY.test(core)) return SUMMARY_LINE;
  if (first === 69 /* E */ && PYTEST_DETAIL.test(core)) return PYTEST_E;
  if ((words & GO_TEST) !== 0 && GO_TEST_MESSAGE.test(core)) return GO_MESSAGE;
  return classifyProblem(core, tag, first, flagged, words);
}

/**
 * A line that names no verdict and no summary: an error that explains, an assertion's
 * details, a warning, or only flagged. Takes the line's parts, as it runs on every flagged line.
 */
function classifyProblem(
  core: string,
  tag: string,
  first: number,
  flagged: boolean,
  words: number,
): LineClass {
  const error = (words & RROR) !== 0;
  if ((error && DIAGNOSTIC.test(core)) || (tag === 'ERROR' && JAVAC_DIAGNOSTIC.test(core))) return DIAGNOSED;
  if (OPENS_PLACE[first] === 1 && PLACED_MESSAGE.test(core))
    return /\b(?:warning|info)\b/i.test(core) ? WARNING : /\bnote\b/i.test(core) ? NOTE : PLACED;
  const lint = OPENS_LINT[first] === 1 ? LINT_DIAGNOSTIC.exec(core) : null;
  if (lint) return lint[1] === 'error' ? LINTED : WARNING;
  if (OPENS_PACKAGE[first] === 1 && PACKAGE_MANAGER.test(core))
    return PACKAGE_MANAGER_NOISE.test(core) ? BOILERPLATE : PACKAGE;
  if (OPENS_ERROR_WORD[first] === 1 && LEADING_ERROR.test(core)) return ERROR_LED;
  // Anchored, it fails within the line's first word: cheaper than the four substring searches
  // over the whole line that once guarded it.
  if (EXCEPTION.test(core)) return EXCEPTION_OPENED;
  if (first === 109 /* m */ && MAKE_FAILURE.test(core)) return MAKE;
  if (flagged && SYSTEM_FAILURE_PARTS.test(core) && SYSTEM_FAILURE.test(core)) return SYSTEM;
  if (OPENS_EXPECTATION[first] === 1 && EXPECTATION.test(core)) return EXPECTED;
  if (first === 84 /* T */ && TRACEBACK.test(core)) return TRACEBACK_OPENED;
  if (tag === 'ERROR') return TAGGED_ERROR;
  if ((words & (RROR | AIL)) !== 0) {
    if (ZERO_COUNTS.test(core) && !NONZERO_COUNT.test(core)) return NOISE;
    if (NONZERO_COUNT.test(core)) return COUNTED;
  }
  if (flagged && GENERIC_FAILURE.test(core)) return GENERIC;
  if ((words & WARNING_WORDS) !== 0 && WARNING_WORD.test(core)) return WARNING;
  return FLAGGED;
}

/**
 * pytest's verdict on a test, when the line is one: FAILED and ERROR a failing test; PASSED, SKIPPED
 * and XFAIL noise, as is xdist's line for a test's start; XPASS (an expected failure that passed, which fails the run only under
 * `xfail_strict`, and then pytest says FAILED) only flagged. Two table reads reject most lines.
 */
function pytestVerdict(core: string, first: number): LineClass | undefined {
  let verdict = opensPytestVerdict(core, first) ? PYTEST_VERDICT_FIRST.exec(core)?.[1] : undefined;
  if (verdict === undefined) {
    const end = core.length - 1;
    const last = charCodeAt.call(core, end);
    const progress = last === 93 /* ] */ && charCodeAt.call(core, end - 1) === 37; /* % */
    // Most lines ending with `)` are stack frames: a test id's `::` is searched first.
    const ends = ENDS_PYTEST_VERDICT[last] === 1 && (last !== 41 /* ) */ || core.includes('::'));
    if (progress || ends) verdict = pytestVerdictLast(core);
    else if (last === 32 && PYTEST_STARTED.test(core)) return NOISE;
    if (verdict === undefined) return undefined;
  }
  if (verdict === 'FAILED' || verdict === 'ERROR') return TEST;
  return verdict === 'XPASS' ? FLAGGED : NOISE;
}

/**
 * The verdict of `path::test VERDICT (reason) [ 42%]` (reason and progress column optional): the
 * first ` VERDICT` after the test's id that the rest of the line allows, as the pattern
 * `^\S+?(?:::|\.py\b).*? (VERDICT)(?: \(.*\))?(?:\s+\[\s*\d{1,3}%\])?$` takes it. Read by hand: that
 * pattern backtracked over every `::` and ` (` of a long line, 80 s on one line of 20 KB.
 */
export function pytestVerdictLast(core: string): string | undefined {
  const end = beforeProgress(core);
  const start = afterTestId(core);
  if (start === -1) return undefined;
  for (
    let blank = core.indexOf(' ', start);
    blank !== -1 && blank < end;
    blank = core.indexOf(' ', blank + 1)
  ) {
    for (const verdict of PYTEST_VERDICTS) {
      if (!startsWith.call(core, verdict, blank + 1)) continue;
      const after = blank + 1 + verdict.length;
      // Nothing after the verdict, or ` (reason)` up to the end.
      if (after === end) return verdict;
      const reason =
        after + 2 < end &&
        charCodeAt.call(core, after) === 32 &&
        charCodeAt.call(core, after + 1) === 40 /* ( */ &&
        charCodeAt.call(core, end - 1) === 41; /* ) */
      if (reason) return verdict;
    }
  }
  return undefined;
}

/** Where the line ends before a progress column (`  [ 42%]`), or its length without one. */
function beforeProgress(core: string): number {
  let index = core.length - 1;
  if (charCodeAt.call(core, index) !== 93 /* ] */ || charCodeAt.call(core, index - 1) !== 37 /* % */)
    return core.length;
  index -= 2;
  const digitsEnd = index;
  while (index >= 0 && isDigitCode(charCodeAt.call(core, index))) index--;
  if (digitsEnd - index < 1 || digitsEnd - index > 3) return core.length;
  while (index >= 0 && isBlank(charCodeAt.call(core, index))) index--;
  if (charCodeAt.call(core, index) !== 91 /* [ */ || !isBlank(charCodeAt.call(core, index - 1)))
    return core.length;
  index--;
  while (index > 0 && isBlank(charCodeAt.call(core, index - 1))) index--;
  return index;
}

/** Where the test's id (a word holding `::` or `.py`, taken at its first) ends, or -1. */
function afterTestId(core: string): number {
  for (let index = 1; index < core.length && !isBlank(charCodeAt.call(core, index - 1)); index++) {
    if (startsWith.call(core, '::', index)) return index + 2;
    if (startsWith.call(core, '.py', index) && !isWordCode(charCodeAt.call(core, index + 3)))
      return index + 3;
  }
  return -1;
}

function isDigitCode(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** A pattern's `\w`: letters, digits and `_` (NaN past the end is none). */
function isWordCode(code: number): boolean {
  return isDigitCode(code) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

/** `[ 42%]`, or the first two letters of PASSED, SKIPPED, XFAIL, XPASS (VERDICT_FIRST reads FAILED and ERROR). */
function opensPytestVerdict(core: string, first: number): boolean {
  const second = charCodeAt.call(core, 1);
  if (first === 91 /* [ */) return second === 32 || (second >= 48 && second <= 57);
  if (first === 88 /* X */) return second === 70 || second === 80; /* F P */
  return (first === 80 && second === 65) || (first === 83 && second === 75); /* PA SK */
}

/** JUnit's `Tests run:` counts (Maven, Ant, sbt): noise when all passed, a summary when some failed. */
function junitCounts(core: string): LineClass {
  if (!JUNIT_FAILED_COUNT.test(core)) return NOISE;
  return core.includes('<<<') ? CLASS_FAILED : SUMMARY_LINE;
}

/** `1) title`, `● title`, `___ title ___`: how a runner marks each entry of a failure list. */
export type ItemMarker = 'numbered' | 'bullet' | 'banner' | 'plain';

const NUMBERED = /^\d+\) \S/;

export function itemMarker(core: string): ItemMarker {
  if (NUMBERED.test(core)) return 'numbered';
  if (BULLET.test(core)) return 'bullet';
  if (BANNER.test(core)) return 'banner';
  return 'plain';
}

// `Failures:`, `Tests in error:`, `Failures (38):`, `There were 2 failures:` — a colon ends a header;
// `3 failing`, `=== FAILURES ===`, `Summary of all failing tests` need none. A bare count (`1 error`) is
// a total, not a header.
const LISTING_HEADER =
  /^(?:(?:(?:\d+ )?(?:failures?|errors?|failed tests?|tests? in error|failing tests?|failed examples)(?: \(\d+\))?|there (?:was|were) \d+ (?:failures?|errors?)):|\d+ failing|summary of all failing tests)$/i;
const BANNER_HEADER = /^(?:failures|errors|short test summary info)$/i;
const BANNER_EDGES = /^=+ | =+$/g;
/** What a header opens with, in either case: a count, `failures`, `errors`, `tests`, `there`, `summary`, or a `=` banner. */
const OPENS_HEADER = opening(`=${DIGITS}fFeEtTsS`);

/** Whether a line opens a list of failures that a runner prints at the end. */
export function isListingHeader(core: string): boolean {
  if (core.length > 120 || OPENS_HEADER[charCodeAt.call(core, 0)] !== 1) return false;
  if (charCodeAt.call(core, 0) === 61 /* = */) return BANNER_HEADER.test(core.replace(BANNER_EDGES, ''));
  const title = trimEnd.call(core);
  return title.length < 50 && LISTING_HEADER.test(title);
}
