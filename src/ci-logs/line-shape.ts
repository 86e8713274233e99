import { latin1 } from './log-lines.js';

// Called as `charCodeAt.call(text, i)`: see "String methods" in docs/ci-logs.md for why.
const { charCodeAt } = String.prototype;

/**
 * The layout of a stripped log line: its indentation, an optional tool tag
 * (`[ERROR]`, `[junit]`, `[javac]`, BuildKit's `#12 3.402`), and the rest.
 * Runners nest failure details by indentation inside the tag, so indentation
 * is measured after the tag.
 */
export interface LineShape {
  indent: number;
  /** The tag's inner text (`ERROR`, `junit`), or '' without one. */
  tag: string;
  core: string;
}

const TAG = /^\[([A-Za-z][\w .:-]{0,15})\] ?/;
const BUILDKIT = /^#\d+ \d+\.\d+ /;

export function shapeOf(text: string): LineShape {
  let start = 0;
  while (start < text.length && isBlank(charCodeAt.call(text, start))) start++;
  let tag = '';
  let body = start === 0 ? text : text.slice(start);
  const first = charCodeAt.call(body, 0);
  if (first === 91 /* [ */) {
    const match = TAG.exec(body);
    if (match) {
      tag = match[1] ?? '';
      body = body.slice(match[0].length);
      start = 0;
      while (start < body.length && isBlank(charCodeAt.call(body, start))) start++;
      return { indent: start, tag, core: start === 0 ? body : body.slice(start) };
    }
  } else if (first === 35 /* # */ && charCodeAt.call(body, 1) !== 35) {
    const match = BUILDKIT.exec(body);
    if (match) return shapeOf(body.slice(match[0].length));
  }
  return { indent: start, tag, core: body };
}

function isBlank(code: number): boolean {
  return code === 32 || code === 9;
}

/** Where a stack frame points, when the line is one: the repository's own code, or a library's. */
export type FrameOrigin = 'repository' | 'library';

const JAVASCRIPT_OR_JAVA_FRAME = /^at (?:async )?\S/;
const PYTHON_FRAME = /^File "([^"]+)", line \d+/;
const BARE_JVM_FRAME =
  /^[\w$]+(?:\.[\w$<>-]+)+\((?:[\w$]+\.(?:java|kt|scala|groovy)(?::\d+)?|Native Method|Unknown Source)\)$/;
// Go and Rust frames, and vitest's `❯ file:line:col` (its ❯ as latin1 bytes: lines are not decoded yet).
const GO_OR_RUST_FRAME = new RegExp(
  `^(?:\\S+\\.(?:go|rs):\\d+(?::\\d+)?(?: \\+0x[0-9a-f]+)?|\\d+: \\S+::\\S+|${latin1('❯')} \\S+:\\d+:\\d+)$`,
);
const PYTEST_LOCATION = /^[\w./\\-]+\.py:\d+: (?:in \S+|\w+)$/;
/** What GO_OR_RUST_FRAME's lines end with (a line number, an offset's hex digit) or open with (a digit, ❯'s first byte). */
const ENDS_GO_OR_RUST = table('0123456789abcdef');
const OPENS_RUST_OR_VITEST = table('0123456789\xe2');

function table(characters: string): Uint8Array {
  const codes = new Uint8Array(256);
  for (const character of characters) codes[charCodeAt.call(character, 0)] = 1;
  return codes;
}

// Paths and packages that belong to runtimes, package managers and test frameworks, not to the project.
const LIBRARY_PATH =
  /node_modules|node:internal|\(internal\/|\(node:|<anonymous>|site-packages|dist-packages|\/usr\/lib\/|\/opt\/hostedtoolcache|<frozen |\/go\/pkg\/mod|\/usr\/local\/go\/|\/rustc\/|\.cargo\/registry/;
const LIBRARY_PACKAGE =
  /^(?:at )?(?:java|javax|jdk|sun|com\.sun|org\.junit|junit|org\.opentest4j|org\.apache\.maven|org\.gradle|worker\.org\.gradle|org\.testng|org\.mockito|net\.bytebuddy|kotlin|kotlinx|scala|groovy|org\.codehaus\.groovy|org\.assertj|org\.hamcrest|org\.springframework\.test|org\.apache\.tools\.ant)\./;

export function frameOrigin(core: string): FrameOrigin | null {
  const first = charCodeAt.call(core, 0);
  let frame = false;
  if (first === 97 /* a */) frame = JAVASCRIPT_OR_JAVA_FRAME.test(core);
  else if (first === 70 /* F */) frame = PYTHON_FRAME.test(core);
  if (!frame) {
    // Each pattern runs only where its frame could be: most lines end in none of these characters.
    const last = charCodeAt.call(core, core.length - 1);
    frame =
      (last === 41 /* ) */ && BARE_JVM_FRAME.test(core)) ||
      ((ENDS_GO_OR_RUST[last] === 1 || OPENS_RUST_OR_VITEST[first] === 1) && GO_OR_RUST_FRAME.test(core)) ||
      (core.includes('.py:') && PYTEST_LOCATION.test(core));
  }
  if (!frame) return null;
  return LIBRARY_PATH.test(core) || LIBRARY_PACKAGE.test(core) ? 'library' : 'repository';
}

// `4 |     let x: i32 = "a";`, `  |  ^^^ expected i32`, `> 12 |   expect(…)`: a quoted source line with a gutter.
// Each run of blanks has one place in the pattern: two in a row (`>\s*\d*\s*`) made it split a long run
// every way it could before failing, in time the square of the run.
const CODE_FRAME = /^(?:>\s*(?:\d+\s*)?|\d*\s*)\|/;
const POINTER = /\^|^>/;

/**
 * How much a line of a code frame (rustc, babel, jest, vitest) is worth: the pointed
 * line and its carets most, the rest a little; 0 when the line is not one.
 */
export function codeFrameWeight(core: string): number {
  if (!CODE_FRAME.test(core)) return 0;
  return POINTER.test(core) ? 35 : 18;
}
