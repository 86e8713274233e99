import type { OutputStream } from './output-stream.js';

/** Terminal helpers for the CLI's live output: colors, a spinner, and text made safe to print. */

const STYLES = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
};
export type Style = keyof typeof STYLES;

export function paint(style: Style, text: string, enabled: boolean): string {
  if (!enabled) return text;
  const [on, off] = STYLES[style];
  return `\x1b[${on}m${text}\x1b[${off}m`;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const CLEAR_LINE = '\r\x1b[2K';

/** One line at the bottom of a terminal, redrawn in place while the work waits. */
export class Spinner {
  private timer: NodeJS.Timeout | undefined;
  private label = '';
  private since = 0;
  private frame = 0;
  private shown = false;

  constructor(
    private readonly out: OutputStream,
    private readonly intervalMs: number,
    private readonly color: boolean,
  ) {}

  start(label: string): void {
    if (label !== this.label || this.timer === undefined) this.since = Date.now();
    this.label = label;
    // unref: a spinner must never keep the process alive after the work is done.
    this.timer ??= setInterval(() => this.draw(), this.intervalMs).unref();
    this.draw();
  }

  /** Wipes the spinner's line so the next text starts on a clean one; the next tick redraws it. */
  clear(): void {
    if (this.shown) this.out.write(CLEAR_LINE);
    this.shown = false;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.label = '';
    this.clear();
  }

  private draw(): void {
    const seconds = Math.floor((Date.now() - this.since) / 1000);
    const text = `${FRAMES[this.frame++ % FRAMES.length]} ${this.label}${seconds > 0 ? ` (${seconds} s)` : ''}`;
    this.out.write(`${CLEAR_LINE}${paint('dim', text, this.color)}`);
    this.shown = true;
  }
}

/**
 * Text from commands and the model, made safe for a terminal and a log: escape
 * sequences, carriage-return redraws and other control characters removed, so
 * a program's colors or a model's stray bytes can neither garble the screen nor
 * put ANSI codes into output that is not a terminal.
 */
export function plain(text: string): string {
  return (
    text
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing escape sequences is the point.
      .replace(/\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?/g, '')
      .replace(/\r\n/g, '\n')
      .replace(/^.*\r/gm, '')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
      .replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '')
  );
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Each line of `text` prefixed: `first` for the first line, `rest` for the ones that follow. */
export function indent(text: string, first: string, rest: string): string[] {
  return text.split('\n').map((line, index) => `${index === 0 ? first : rest}${line}`);
}

export function plural(count: number, noun: string): string {
  return `${count.toLocaleString('en-US')} ${noun}${count === 1 ? '' : 's'}`;
}

export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
}
