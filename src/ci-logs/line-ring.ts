/**
 * The last few lines as ranges of the chunk text they came from: nothing is
 * copied until a line is wanted as context.
 */
export interface RingLine {
  raw: string;
  number: number;
}

/** Lines taken out of a ring by reference (no text copied), oldest first. */
export interface RingSnapshot {
  texts: string[];
  starts: number[];
  ends: number[];
  numbers: number[];
}

export class LineRing {
  private readonly texts: string[];
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  private readonly numbers: Float64Array;
  private count = 0;
  /** `count % size`, kept rather than computed: every line of a log is pushed. */
  private next = 0;

  constructor(private readonly size: number) {
    this.texts = new Array(size).fill('');
    this.starts = new Int32Array(size);
    this.ends = new Int32Array(size);
    this.numbers = new Float64Array(size);
  }

  push(text: string, start: number, end: number, number: number): void {
    const slot = this.next;
    this.texts[slot] = text;
    this.starts[slot] = start;
    this.ends[slot] = end;
    this.numbers[slot] = number;
    this.count++;
    this.next = slot + 1 === this.size ? 0 : slot + 1;
  }

  /** The line numbered `number`, copied out, if the ring still holds it. */
  find(number: number): string | null {
    // Newest first: numbers grow with every push, so the search stops at the first smaller one.
    for (let index = this.count - 1; index >= Math.max(0, this.count - this.size); index--) {
      const slot = index % this.size;
      const held = this.numbers[slot]!;
      if (held === number) return this.texts[slot]!.slice(this.starts[slot], this.ends[slot]);
      if (held < number) return null;
    }
    return null;
  }

  /**
   * The lines numbered from `first` on, of the newest `limit`, by reference: a few array writes per line,
   * cheap enough to take at every step's end. The chunk strings they point into stay
   * alive as long as the snapshot does, so callers keep only a handful.
   */
  snapshot(first: number, limit = this.size): RingSnapshot {
    const out: RingSnapshot = { texts: [], starts: [], ends: [], numbers: [] };
    for (let index = Math.max(0, this.count - Math.min(limit, this.size)); index < this.count; index++) {
      const slot = index % this.size;
      if (this.numbers[slot]! < first) continue;
      out.texts.push(this.texts[slot]!);
      out.starts.push(this.starts[slot]!);
      out.ends.push(this.ends[slot]!);
      out.numbers.push(this.numbers[slot]!);
    }
    return out;
  }

  /** Oldest first. */
  lines(): RingLine[] {
    return snapshotLines(this.snapshot(0));
  }
}

export function snapshotLines(snapshot: RingSnapshot): RingLine[] {
  return snapshot.numbers.map((number, index) => ({
    raw: snapshot.texts[index]!.slice(snapshot.starts[index], snapshot.ends[index]),
    number,
  }));
}
