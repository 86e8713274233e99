import { StringDecoder } from 'node:string_decoder';
import { realTimers, type Timers } from '../util/timers.js';

export interface SetupOutputOptions {
  /** Most lines one batch shows; a busier interval's earlier lines are counted, not shown. */
  maxLines?: number;
  /** Least time between two batches. */
  intervalMs?: number;
  maxLineChars?: number;
  timers?: Timers;
  /** Applied to each batch before it leaves (the one redactor, in the adapters that run setup). */
  redact?: (text: string) => string;
}

/** Where a batch's lines start, so they read as the step's own output under its `setup:` line. */
export const OUTPUT_BAR = '  │ ';

/**
 * A setup step's output as it runs, in throttled batches: at most one batch
 * per interval and `maxLines` lines per batch, each line clipped, so a
 * chatty installer (npm's progress, pip's download bars) costs the terminal
 * and the job log a bounded trickle while a silent one still shows its last
 * words within the interval. Carriage returns end a line too: a progress
 * bar's redraws are lines that mostly get counted, not shown.
 */
export class SetupOutputFeed {
  private readonly decoder = new StringDecoder('utf8');
  private readonly maxLines: number;
  private readonly intervalMs: number;
  private readonly maxLineChars: number;
  private readonly timers: Timers;
  private readonly redact: (text: string) => string;
  private partial = '';
  private pending: string[] = [];
  private skipped = 0;
  private timer: unknown = null;

  constructor(
    private readonly emit: (text: string) => void,
    options: SetupOutputOptions = {},
  ) {
    this.maxLines = options.maxLines ?? 20;
    this.intervalMs = options.intervalMs ?? 1000;
    this.maxLineChars = options.maxLineChars ?? 300;
    this.timers = options.timers ?? realTimers;
    this.redact = options.redact ?? ((text) => text);
  }

  write(chunk: Buffer): void {
    const lines = (this.partial + this.decoder.write(chunk)).split(/\r\n|\r|\n/);
    this.partial = lines.pop() ?? '';
    // A line that never ends (a minified bundle, a bar without returns) is still bounded.
    if (this.partial.length > this.maxLineChars * 4) lines.push(this.partial.slice(0, this.maxLineChars));
    if (this.partial.length > this.maxLineChars * 4) this.partial = '';
    for (const line of lines) this.add(line);
    if (this.timer === null && this.pending.length > 0)
      this.timer = this.timers.setTimeout(() => this.flush(), this.intervalMs);
  }

  /** The step ended: what is left goes out at once. */
  end(): void {
    this.add(this.partial + this.decoder.end());
    this.partial = '';
    this.flush();
  }

  private add(line: string): void {
    const text = line.trimEnd();
    if (text.trim() === '') return;
    this.pending.push(text.length > this.maxLineChars ? `${text.slice(0, this.maxLineChars - 1)}…` : text);
    if (this.pending.length > this.maxLines) {
      this.pending.shift();
      this.skipped += 1;
    }
  }

  private flush(): void {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    const skipped = this.skipped === 1 ? '… 1 more line' : `… ${this.skipped} more lines`;
    const lines = [...(this.skipped > 0 ? [skipped] : []), ...this.pending];
    this.pending = [];
    this.skipped = 0;
    if (lines.length > 0) this.emit(this.redact(lines.map((line) => `${OUTPUT_BAR}${line}`).join('\n')));
  }
}

/** The last `count` non-empty lines of a run's output, each clipped: where a failure usually says why. */
export function lastLines(output: string, count = 30, maxLineChars = 300): string[] {
  return output
    .split(/\r\n|\r|\n/)
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '')
    .slice(-count)
    .map((line) => (line.length > maxLineChars ? `${line.slice(0, maxLineChars - 1)}…` : line));
}
