import { shapeOf } from './line-shape.js';
import { isBlank, showLine } from './line-text.js';

// Called as `charCodeAt.call(text, i)`: see "String methods" in docs/ci-logs.md for why.
const { charCodeAt } = String.prototype;
/**
 * Go's runtime traceback (runtime/traceback.go): `panic: message` (or `fatal error: …`), a few
 * lines (`[recovered]`, `[signal SIGSEGV …]`, `running tests:`), then each goroutine's stack as
 * `goroutine N [status]:`, frames of two lines (`pkg.Func(args)`, then a tab and `file.go:12 +0x1f`),
 * `created by pkg.Func`, and a blank line before the next goroutine. The runtime prints the
 * goroutine that panicked first; the others (`[chan receive]`, `[select]`, `[IO wait]`…), printed
 * under GOTRACEBACK=all, on a test's timeout or a fatal error, are the program's state at the
 * time, and can run to thousands of lines.
 *
 * Read line by line: the panic with the first goroutine's stack is kept whole (the first of each
 * step, for the excerpt to keep as the failure's block); the other goroutines' lines are marked
 * as noise by their line numbers, as ranges. A test's timeout (`panic: test timed out after 10m0s`)
 * panics in the testing package's alarm goroutine: there the stuck test's own goroutine (the one
 * running `pkg.TestName`) is the failure too, and joins the block.
 */
const OPENS = /^(?:panic: |fatal error: )/;
const HEADER = /^goroutine \d+ \[[^\]]+\]:$/;
const FILE = /^\S+:\d+(?: \+0x[0-9a-f]+)?$/;
const CREATED = /^created by \S+(?: in goroutine \d+)?$/;
const ELIDED = /^\.\.\.(?:additional frames elided|\d+ frames elided)\.\.\.$/;
const TIMEOUT = /^panic: test timed out after /;
/** A test function's frame (`example.com/shop.TestShip(0xc0001)`), not a closure inside it. */
const TEST_FRAME = /^\S+\.(?:Test|Benchmark|Fuzz)\w*\(/;
/** Lines between the panic and the first goroutine (`[recovered]`, `[signal …]`, the running tests). */
const MAX_HEAD_LINES = 40;
/** The most of one panic kept whole: the runtime prints at most 100 frames of two lines each. */
const MAX_BLOCK_LINES = 220;
/** Dumps whose other goroutines are remembered; older ones are forgotten, as memory does not grow with the log. */
const MAX_RANGES = 64;
/** Steps whose first panic is kept. */
const MAX_STEPS = 8;

type State = 'idle' | 'head' | 'first' | 'between' | 'others';

export interface PanicBlock {
  step: number;
  lines: { number: number; text: string }[];
}

export class GoTraceback {
  private state: State = 'idle';
  private block: PanicBlock | null = null;
  private headLines = 0;
  private readonly firsts: PanicBlock[] = [];
  /** Other goroutines' lines, as inclusive ranges of line numbers, oldest first. */
  private readonly ranges: [number, number][] = [];
  private timeout = false;
  /** Under a timeout, the other goroutine being read, until it shows whether it runs a test. */
  private pending: { lines: { number: number; text: string }[]; test: boolean } | null = null;

  /** Whether a traceback is being read: every line is to be passed to `read`. */
  get active(): boolean {
    return this.state !== 'idle';
  }

  /** A line the builder weighs: a panic, at the start of its line, opens a traceback. */
  opens(text: string, number: number, step: number): void {
    const shape = shapeOf(text);
    if (shape.indent !== 0 || !OPENS.test(shape.core)) return;
    if (this.state === 'head' || this.state === 'first') return;
    this.state = 'head';
    this.headLines = 0;
    this.timeout = TIMEOUT.test(shape.core);
    const kept = this.firsts.some((block) => block.step === step) || this.firsts.length >= MAX_STEPS;
    this.block = kept ? null : { step, lines: [{ number, text: showLine(text) }] };
  }

  /**
   * The next line of a traceback being read, stripped: the panic's (its head, the stack of the
   * goroutine that panicked), another goroutine's (noise), or the first line after the traceback.
   */
  read(text: string, number: number): 'panic' | 'other' | 'after' {
    const { core } = shapeOf(text);
    const header = HEADER.test(core);
    if (this.state === 'head') {
      if (header) this.state = 'first';
      else if (++this.headLines > MAX_HEAD_LINES) return this.end();
      return this.keep(number, text);
    }
    if (this.state === 'first') {
      if (core.length === 0) this.state = 'between';
      else if (!isFrameLine(core)) return this.end();
      return this.keep(number, text);
    }
    if (header) {
      this.state = 'others';
      this.settle();
      // One range for a dump's goroutines, however many: they follow each other.
      const last = this.ranges[this.ranges.length - 1];
      if (last !== undefined && last[1] === number - 1) last[1] = number;
      else this.ranges.push([number, number]);
      if (this.ranges.length > MAX_RANGES) this.ranges.shift();
      if (this.timeout && this.block !== null) this.pending = { lines: [], test: false };
      return this.other(number, text, core);
    }
    if (this.state === 'others' && (core.length === 0 || isFrameLine(core))) {
      this.ranges[this.ranges.length - 1]![1] = number;
      return this.other(number, text, core);
    }
    if (this.state === 'between' && core.length === 0) return 'panic';
    return this.end();
  }

  /** Whether a line belongs to another goroutine than the one that panicked. */
  isOther(number: number): boolean {
    for (let index = this.ranges.length - 1; index >= 0; index--) {
      const [first, last] = this.ranges[index]!;
      if (number >= first && number <= last) return true;
      if (number > last) return false;
    }
    return false;
  }

  /**
   * The first panic of each step, with the stack of the goroutine that panicked (one the log ends in
   * too). Read once the log is: `isOther` is final only then.
   */
  panics(): PanicBlock[] {
    this.settle();
    if (this.block === null || this.state === 'head' || this.state === 'idle') return this.firsts;
    return [...this.firsts, this.block];
  }

  private keep(number: number, text: string): 'panic' {
    const block = this.block;
    if (block !== null && block.lines.length < MAX_BLOCK_LINES && shapeOf(text).core.length > 0) {
      block.lines.push({ number, text: showLine(text) });
    }
    return 'panic';
  }

  private other(number: number, text: string, core: string): 'other' {
    const pending = this.pending;
    if (pending !== null && core.length > 0) {
      pending.lines.push({ number, text: showLine(text) });
      pending.test ||= TEST_FRAME.test(core);
    }
    return 'other';
  }

  /** The goroutine just read ran a stuck test: its lines join the panic's block, and leave the noise. */
  private settle(): void {
    const pending = this.pending;
    this.pending = null;
    if (pending === null || !pending.test || this.block === null) return;
    const first = pending.lines[0]!.number;
    const range = this.ranges[this.ranges.length - 1]!;
    if (range[0] < first) this.ranges.push([pending.lines.at(-1)!.number + 1, range[1]]);
    else this.ranges.pop();
    range[1] = first - 1;
    for (const line of pending.lines)
      if (this.block.lines.length < MAX_BLOCK_LINES) this.block.lines.push(line);
  }

  /** The traceback ended at this line (not one of it): the panic's block is done. */
  private end(): 'after' {
    this.settle();
    if (this.block !== null && this.state !== 'head') this.firsts.push(this.block);
    this.block = null;
    this.state = 'idle';
    return 'after';
  }
}

export function isFrameLine(core: string): boolean {
  return isCall(core) || FILE.test(core) || CREATED.test(core) || ELIDED.test(core);
}

/**
 * `pkg.Func(args)`: a word holding a `(` after its first character, and a `)` ending the line.
 * Read by hand: as `^\S+\(.*\)$` it backtracked over every `(` of a long word, in time the square
 * of the line's length (16 KB of `(`: a fifth of a second, for each such line of a log).
 */
function isCall(core: string): boolean {
  if (core.length < 3 || charCodeAt.call(core, core.length - 1) !== 41 /* ) */) return false;
  for (let index = 0; index < core.length - 1; index++) {
    const code = charCodeAt.call(core, index);
    if (isBlank(code)) return false;
    if (code === 40 /* ( */ && index > 0) return true;
  }
  return false;
}
