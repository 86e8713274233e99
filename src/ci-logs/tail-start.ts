/**
 * Where `tail -n N` begins, in the excerpt's line numbers. `tail` counts lines by `\n` alone, while
 * the excerpt numbers every segment a lone `\r` ends too: GitLab's `section_start:…\r ESC[0K<title>`
 * and Travis's `travis_fold:…\r ESC[0K` lines are two numbers each, a redrawn progress bar as many as
 * its states, so the last N numbers can hold fewer lines than `tail` shows. The line splitter reports
 * each lone `\r` on its rare path (`continues`), so a line that holds none costs nothing here: the
 * numbers that go on the line before them are kept as runs, the last N runs (each run lies within
 * one line, so older ones cannot reach into the last N lines).
 */
export class TailStart {
  /** Runs of numbers that go on the line before them, oldest first, as a ring of the last `lines`. */
  private readonly firsts: Float64Array;
  private readonly lasts: Float64Array;
  private count = 0;

  constructor(private readonly lines: number) {
    this.firsts = new Float64Array(Math.max(1, lines));
    this.lasts = new Float64Array(Math.max(1, lines));
  }

  /** The segment numbered `number` ended with a lone `\r`: `number + 1` goes on its line. */
  continues(number: number): void {
    const next = number + 1;
    const newest = (this.count - 1) % this.firsts.length;
    if (this.count > 0 && this.lasts[newest] === number) {
      this.lasts[newest] = next;
      return;
    }
    const slot = this.count % this.firsts.length;
    this.firsts[slot] = next;
    this.lasts[slot] = next;
    this.count++;
  }

  /** The number of the first line `tail -n lines` shows of `total` numbered lines (1 when all). */
  first(total: number): number {
    let remaining = this.lines;
    let end = total;
    const oldest = Math.max(0, this.count - this.firsts.length);
    for (let index = this.count - 1; index >= oldest; index--) {
      const slot = index % this.firsts.length;
      const last = Math.min(this.lasts[slot]!, end);
      // The numbers after the run each open a line of their own.
      if (end - last >= remaining) return end - remaining + 1;
      remaining -= end - last;
      end = this.firsts[slot]! - 1;
    }
    return Math.max(1, end - remaining + 1);
  }
}
