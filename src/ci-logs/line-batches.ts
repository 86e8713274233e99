import type { LineHandler } from './log-lines.js';

/**
 * The lines a splitter delivered, recorded so that another thread can replay
 * them into its own handler, call for call. The texts are the splitter's
 * latin1 pieces (a 64 KB window each, or a line that spanned windows), sent
 * once; each line is a range into one of them, so a batch costs a copy of the
 * bytes it covers plus a few numbers per line.
 */
export interface LineBatch {
  texts: string[];
  /** Per line: the index of its text, its start, its end, and 1 when flagged. */
  ranges: Int32Array;
  numbers: Float64Array;
  /** How many lines of `ranges` and `numbers` are filled. */
  length: number;
}

const FIELDS = 4;
/** Lines a batch has room for before it grows; a megabyte of log holds about 10,000. */
const INITIAL_LINES = 16 * 1024;

export class BatchRecorder implements LineHandler {
  private texts: string[] = [];
  private ranges = new Int32Array(INITIAL_LINES * FIELDS);
  private numbers = new Float64Array(INITIAL_LINES);
  private length = 0;

  line(text: string, start: number, end: number, number: number, flagged: boolean): void {
    const texts = this.texts;
    // Lines of one piece arrive in a row: a new text is a new piece (or a redrawn line's own string).
    if (texts.length === 0 || texts[texts.length - 1] !== text) texts.push(text);
    if (this.length === this.numbers.length) this.grow();
    const at = this.length * FIELDS;
    this.ranges[at] = texts.length - 1;
    this.ranges[at + 1] = start;
    this.ranges[at + 2] = end;
    this.ranges[at + 3] = flagged ? 1 : 0;
    this.numbers[this.length++] = number;
  }

  /** The lines recorded since the last take, as a batch whose arrays may be transferred. */
  take(): LineBatch {
    const batch = { texts: this.texts, ranges: this.ranges, numbers: this.numbers, length: this.length };
    this.texts = [];
    this.ranges = new Int32Array(this.ranges.length);
    this.numbers = new Float64Array(this.numbers.length);
    this.length = 0;
    return batch;
  }

  private grow(): void {
    const ranges = new Int32Array(this.ranges.length * 2);
    ranges.set(this.ranges);
    const numbers = new Float64Array(this.numbers.length * 2);
    numbers.set(this.numbers);
    this.ranges = ranges;
    this.numbers = numbers;
  }
}

export function replayBatch(batch: LineBatch, handler: LineHandler): void {
  const { texts, ranges, numbers, length } = batch;
  for (let line = 0, at = 0; line < length; line++, at += FIELDS) {
    handler.line(texts[ranges[at]!]!, ranges[at + 1]!, ranges[at + 2]!, numbers[line]!, ranges[at + 3] === 1);
  }
}
