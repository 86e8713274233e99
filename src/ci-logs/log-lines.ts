// Called as `charCodeAt.call(text, i)`: see "String methods" in docs/ci-logs.md for why.
const { charCodeAt, startsWith } = String.prototype;
/**
 * Bytes in, numbered lines out, in one pass with bounded memory.
 *
 * Numbering follows the input exactly: `\n`, `\r\n` and a lone `\r` each end
 * a line. A lone `\r` is how progress bars redraw themselves, so a run of
 * `\r`-separated segments ending at a `\n` is delivered once, as its last
 * non-empty segment (the state a terminal would finally show) under that
 * segment's own number; the overwritten segments are counted but never shown.
 *
 * Chunks are scanned as latin1, one character per byte: it costs a fraction
 * of UTF-8 decoding, and since no byte of a multi-byte UTF-8 sequence is a
 * `\n` or `\r`, every line is a whole UTF-8 string that the caller decodes
 * only when it keeps the line (see `decodeLine`). The same pass searches for a
 * few keywords over the whole chunk, and looks at how each line opens in its
 * bytes, so an unflagged line costs an `indexOf` and a few byte reads.
 */
export interface LineHandler {
  /**
   * One line: `text.slice(start, end)`, latin1 (undecoded UTF-8 bytes), and the same characters
   * as `bytes[start..end)`, for readers that look at a few of them (a byte read costs a fraction
   * of `charCodeAt`). Passed as a range so that lines nobody reads are never copied out;
   * `flagged` says the keyword pattern matched inside it.
   */
  line(text: string, start: number, end: number, number: number, flagged: boolean, bytes: Uint8Array): void;
  /**
   * The segment numbered `number` ended with a lone `\r`: the next number goes on the same
   * `\n`-ended line, as `tail` counts lines. Called on the rare path only (see TailStart).
   */
  continues?(number: number): void;
}

/** Longer lines keep their first bytes only: the rest cannot fit an excerpt anyway. */
export const MAX_LINE_BYTES = 16 * 1024;
const WINDOW_BYTES = 64 * 1024;

const LF = 10;
const CR = 13;

/**
 * How a line gets flagged: a keyword anywhere in it, or a test of how it opens. `opens` reads the
 * line's bytes, `bytes[start..end)`, the same characters as the text's (latin1): an indexed read of a
 * byte array costs a fraction of `charCodeAt` on a string, and this test runs on nearly every line.
 */
export interface LineFlags {
  keywords: RegExp;
  /** More keywords, each searched for apart by a part of it (see AnchoredWord). */
  anchored?: readonly AnchoredWord[];
  opens(bytes: Uint8Array, start: number, end: number): boolean;
}

/**
 * A keyword searched for by its `anchor`, a part of it, then checked whole where the anchor
 * stands. A native substring search skips fast to a rare first character (`found`, `_test.`),
 * while a pattern's alternative that opens with a common one (`ot found`) slows the whole scan.
 */
export interface AnchoredWord {
  word: string;
  anchor: string;
}

export class LineSplitter {
  private readonly keywords: RegExp;
  private readonly anchored: readonly { word: string; anchor: string; offset: number }[];
  /** The next hit of the pattern and of each anchored word in the piece being scanned: -2 not searched yet, -1 none. */
  private patternHit = -2;
  private readonly anchoredHits: Int32Array;
  private readonly opens: LineFlags['opens'];
  private carry: Buffer[] = [];
  private carryBytes = 0;
  /** The previous piece ended in `\r`: a `\n` opening the next one completes a `\r\n`. */
  private afterCarriageReturn = false;
  /** The last non-empty segment of a redraw run still open, with its number and flag. */
  private pending: { raw: string; number: number; flagged: boolean } | null = null;
  private count = 0;
  private bytes = 0;

  constructor(
    private readonly handler: LineHandler,
    flags: LineFlags,
  ) {
    const { keywords } = flags;
    this.keywords = new RegExp(
      keywords.source,
      keywords.flags.includes('g') ? keywords.flags : `${keywords.flags}g`,
    );
    this.anchored = (flags.anchored ?? []).map(({ word, anchor }) => ({
      word,
      anchor,
      offset: word.indexOf(anchor),
    }));
    this.anchoredHits = new Int32Array(this.anchored.length);
    this.opens = flags.opens;
  }

  /** Lines numbered so far; after `end()`, the number of lines in the input. */
  get lines(): number {
    return this.count;
  }

  get bytesRead(): number {
    return this.bytes;
  }

  push(chunk: Uint8Array): void {
    const whole = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.bytes += whole.length;
    // Scanned in windows: strings this small live and die in V8's young generation, where
    // garbage is cheap; megabyte strings would go to the large-object space and pile up
    // until a full collection, growing the process by hundreds of megabytes on a large log.
    for (let offset = 0; offset < whole.length; offset += WINDOW_BYTES) {
      this.pushWindow(whole.subarray(offset, Math.min(whole.length, offset + WINDOW_BYTES)));
    }
  }

  private pushWindow(buffer: Buffer): void {
    let start = 0;
    if (this.carryBytes > 0) {
      const first = firstBreak(buffer);
      if (first === -1) {
        this.keepCarry(buffer);
        return;
      }
      this.keepCarry(buffer.subarray(0, first + 1));
      const line = Buffer.concat(this.carry);
      this.scan(line.toString('latin1'), line, false);
      this.carry = [];
      this.carryBytes = 0;
      start = first + 1;
    }
    const cut = lastBreak(buffer, start);
    if (cut >= start)
      this.scan(buffer.toString('latin1', start, cut + 1), buffer.subarray(start, cut + 1), false);
    if (cut + 1 < buffer.length) this.keepCarry(buffer.subarray(Math.max(start, cut + 1)));
  }

  end(): void {
    const rest = this.carryBytes > 0 ? Buffer.concat(this.carry) : Buffer.alloc(0);
    this.carry = [];
    this.carryBytes = 0;
    this.scan(rest.toString('latin1'), rest, true);
  }

  private keepCarry(part: Buffer): void {
    const room = MAX_LINE_BYTES - this.carryBytes;
    if (room <= 0) return;
    // Copied: a subarray would pin the whole chunk for as long as the line is open.
    const kept = Buffer.from(part.subarray(0, room));
    this.carry.push(kept);
    this.carryBytes += kept.length;
  }

  /**
   * Splits one piece that ends right after a line break (or at the end of the
   * input, when `last`). Redraw runs may stay open across pieces. `bytes` are the piece's
   * bytes, `text` the same read as latin1: index for index the same characters.
   */
  private scan(text: string, bytes: Uint8Array, last: boolean): void {
    const length = text.length;
    let position = 0;
    if (this.afterCarriageReturn && length > 0 && charCodeAt.call(text, 0) === LF) {
      // The `\r` closing the previous piece was half of a `\r\n`: the run ends there.
      position = 1;
      this.closeRun();
    } else if (this.afterCarriageReturn && length > 0) this.handler.continues?.(this.count);
    this.afterCarriageReturn = false;
    let nextReturn = text.indexOf('\r', position);
    let nextHit = -2;
    this.patternHit = -2;
    this.anchoredHits.fill(-2);
    while (position < length) {
      let lineFeed = text.indexOf('\n', position);
      if (lineFeed === -1) lineFeed = length;
      if (nextHit !== -1 && nextHit < position) nextHit = this.nextKeyword(text, position);
      if (nextReturn === -1 || nextReturn >= lineFeed) {
        this.count++;
        const flagged = (nextHit !== -1 && nextHit < lineFeed) || this.opens(bytes, position, lineFeed);
        this.endRun(text, bytes, position, lineFeed, this.count, flagged);
        position = lineFeed + 1;
        continue;
      }
      // A `\r` inside this line: walk its segments one break at a time.
      this.count++;
      const flagged = (nextHit !== -1 && nextHit < nextReturn) || this.opens(bytes, position, nextReturn);
      position = this.endSegment(text, bytes, position, nextReturn, flagged, last);
      nextReturn = text.indexOf('\r', position);
    }
    if (last) this.closeRun();
  }

  /**
   * Where the next keyword at or after `position` stands, or -1: the nearest of the pattern's next
   * hit and each anchored word's, each searched again only once the scan has passed it. A hit is
   * any character of it, on the same line as the rest (no keyword holds a line break).
   */
  private nextKeyword(text: string, position: number): number {
    if (this.patternHit !== -1 && this.patternHit < position) {
      // `test` rather than `exec`: no match array per hit; the hit's last character stands for it.
      this.keywords.lastIndex = position;
      this.patternHit = this.keywords.test(text) ? this.keywords.lastIndex - 1 : -1;
    }
    let next = this.patternHit;
    for (let index = 0; index < this.anchored.length; index++) {
      let hit = this.anchoredHits[index]!;
      if (hit !== -1 && hit < position) {
        const { word, anchor, offset } = this.anchored[index]!;
        // A word that starts at `position` or later has its anchor `offset` further on.
        let at = text.indexOf(anchor, position + offset);
        while (at !== -1 && !startsWith.call(text, word, at - offset)) at = text.indexOf(anchor, at + 1);
        hit = at === -1 ? -1 : at - offset;
        this.anchoredHits[index] = hit;
      }
      if (hit !== -1 && (next === -1 || hit < next)) next = hit;
    }
    return next;
  }

  /**
   * A segment ended by the `\r` at `end`: the run's end when a `\n` follows, else a redrawn
   * state kept until the run ends. Returns where the next segment starts.
   */
  private endSegment(
    text: string,
    bytes: Uint8Array,
    start: number,
    end: number,
    flagged: boolean,
    last: boolean,
  ): number {
    if (end + 1 < text.length && charCodeAt.call(text, end + 1) === LF) {
      this.endRun(text, bytes, start, end, this.count, flagged);
      return end + 2;
    }
    // A lone `\r` ends a segment, not the line `tail` counts; one closing the piece is known on the next.
    if (end + 1 < text.length || last) this.handler.continues?.(this.count);
    if (end > start) {
      // GitLab's `section_start:…` and Travis's `travis_fold:…` markers end with `\r` and a clear:
      // they are structure, not a redrawn state, so they are delivered on their own.
      if (isStructureSegment(text, start, end)) this.handler.line(text, start, end, this.count, true, bytes);
      else this.pending = { raw: text.slice(start, end), number: this.count, flagged };
    }
    if (end + 1 === text.length && !last) this.afterCarriageReturn = true;
    return end + 1;
  }

  /** A segment ended by `\n` or `\r\n`: deliver it, or the run's last non-empty segment. */
  private endRun(
    text: string,
    bytes: Uint8Array,
    start: number,
    end: number,
    number: number,
    flagged: boolean,
  ): void {
    const pending = this.pending;
    this.pending = null;
    if (end === start && pending) this.deliver(pending);
    else this.handler.line(text, start, end, number, flagged, bytes);
  }

  private closeRun(): void {
    const pending = this.pending;
    this.pending = null;
    if (pending) this.deliver(pending);
  }

  /** A redrawn line's last state, with bytes of its own (rare: progress bars). */
  private deliver(pending: NonNullable<LineSplitter['pending']>): void {
    const { raw } = pending;
    this.handler.line(raw, 0, raw.length, pending.number, pending.flagged, Buffer.from(raw, 'latin1'));
  }
}

/** `section_…` or `travis_…`, after any `ESC [ 0 K` clears: a CI system's marker that ends with `\r`. */
function isStructureSegment(text: string, start: number, end: number): boolean {
  let index = start;
  while (charCodeAt.call(text, index) === 27 && charCodeAt.call(text, index + 1) === 91) {
    index += 2;
    while (index < end && (charCodeAt.call(text, index) < 0x40 || charCodeAt.call(text, index) > 0x7e))
      index++;
    index++;
  }
  return startsWith.call(text, 'section_', index) || startsWith.call(text, 'travis_', index);
}

function firstBreak(buffer: Buffer): number {
  const lineFeed = buffer.indexOf(LF);
  // A `\r` matters only before the first `\n`, usually a few bytes in: a native search for it
  // would scan the whole window whenever the log has none.
  const limit = lineFeed === -1 ? buffer.length : lineFeed;
  for (let index = 0; index < limit; index++) if (buffer[index] === CR) return index;
  return lineFeed;
}

/** The last `\n` or `\r` at or after `start`, or -1. */
function lastBreak(buffer: Buffer, start: number): number {
  let cut = buffer.lastIndexOf(LF);
  if (cut < start) cut = -1;
  for (
    let index = buffer.indexOf(CR, Math.max(start, cut + 1));
    index !== -1;
    index = buffer.indexOf(CR, index + 1)
  ) {
    cut = index;
  }
  return cut;
}

/** The text of a latin1 line as UTF-8, decoded only when it holds non-ASCII bytes. */
const HIGH_BYTE = /[\x80-\xff]/;

export function decodeLine(raw: string): string {
  return HIGH_BYTE.test(raw) ? Buffer.from(raw, 'latin1').toString('utf8') : raw;
}

/** `text`'s UTF-8 bytes read as latin1: how a symbol such as ● appears in undecoded lines. */
export function latin1(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}
