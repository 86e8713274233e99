/**
 * The last few lines as ranges of the chunk text they came from: nothing is
 * copied until a line is wanted as context.
 */
export class LineRing {
  private readonly texts: string[];
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  private readonly numbers: Float64Array;
  private count = 0;

  constructor(private readonly size: number) {
    this.texts = new Array(size).fill('');
    this.starts = new Int32Array(size);
    this.ends = new Int32Array(size);
    this.numbers = new Float64Array(size);
  }

  push(text: string, start: number, end: number, number: number): void {
    const slot = this.count % this.size;
    this.texts[slot] = text;
    this.starts[slot] = start;
    this.ends[slot] = end;
    this.numbers[slot] = number;
    this.count++;
  }

  find(number: number): string | null {
    for (let slot = 0; slot < Math.min(this.count, this.size); slot++) {
      if (this.numbers[slot] === number) return this.texts[slot]!.slice(this.starts[slot], this.ends[slot]);
    }
    return null;
  }

  /** Oldest first. */
  lines(): { raw: string; number: number }[] {
    const lines: { raw: string; number: number }[] = [];
    for (let index = Math.max(0, this.count - this.size); index < this.count; index++) {
      const slot = index % this.size;
      lines.push({
        raw: this.texts[slot]!.slice(this.starts[slot], this.ends[slot]),
        number: this.numbers[slot]!,
      });
    }
    return lines;
  }
}
