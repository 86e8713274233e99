// Called as `charCodeAt.call(text, i)`: see "String methods" in docs/ci-logs.md for why.
const { charCodeAt } = String.prototype;

const LF = 10;
const CR = 13;

/**
 * Where `tail -n N` begins, in the excerpt's line numbers. `tail` counts lines by `\n` alone, while
 * the excerpt numbers every `\r`-ended segment too: GitLab's `section_start:…\r ESC[0K<title>` and
 * Travis's `travis_fold:…\r ESC[0K` lines are two numbers each, so the last N numbers hold fewer
 * lines than the last N lines `tail` shows. Each delivered line that opens a `\n`-ended line has its
 * number kept, the last N of them in a ring; a marker segment ended by a lone `\r` opens no line of
 * its own for the next one. (A redraw run is delivered once, as its last state: its number stands
 * for the line, and the numbers before it are never shown.)
 */
export class TailStart {
  private readonly starts: Int32Array;
  private count = 0;
  /** The last delivered line ended with a lone `\r`: the next one goes on the same `\n`-ended line. */
  private continued = false;

  constructor(private readonly lines: number) {
    this.starts = new Int32Array(Math.max(1, lines));
  }

  /** A delivered line, `text.slice(start, end)`, numbered `number`. */
  line(text: string, end: number, number: number): void {
    if (!this.continued) {
      this.starts[this.count % this.starts.length] = number;
      this.count++;
    }
    this.continued = charCodeAt.call(text, end) === CR && charCodeAt.call(text, end + 1) !== LF;
  }

  /** The number of the first line `tail -n lines` shows (1 when it shows them all). */
  first(): number {
    if (this.count <= this.lines) return 1;
    return this.starts[this.count % this.starts.length]!;
  }
}
