import { ExcerptBuilder } from './excerpt-builder.js';
import type { LineHandler } from './log-lines.js';
import { type LogSource, readLog } from './log-source.js';
import type { LogExcerpt } from './select-lines.js';

/**
 * A failed job's log turned into what explains the failure: the failing
 * step, its exit code, and the lines worth a reader's budget with their
 * original numbers. Reads any byte or string source once, front to back.
 */
export interface ExcerptOptions {
  /** Most lines the excerpt keeps; 150 when not given. */
  maxLines?: number;
  /** Most characters of kept text (with room for numbers and gap marks), for a prompt's budget. */
  maxCharacters?: number;
  /** Other readers of the same pass (the infrastructure-failure classifier), so a log is downloaded and read once. */
  alsoRead?: readonly LineHandler[];
}

export const DEFAULT_MAX_LINES = 150;

export async function excerptLog(source: LogSource, options: ExcerptOptions = {}): Promise<LogExcerpt> {
  const requested = options.maxLines ?? DEFAULT_MAX_LINES;
  const maxLines = Number.isFinite(requested) ? Math.max(1, Math.floor(requested)) : DEFAULT_MAX_LINES;
  const builder = new ExcerptBuilder(maxLines, options.maxCharacters ?? Number.POSITIVE_INFINITY);
  const others = options.alsoRead ?? [];
  const reader: LineHandler =
    others.length === 0
      ? builder
      : {
          line(text, start, end, number, flagged, bytes) {
            builder.line(text, start, end, number, flagged, bytes);
            for (const other of others) other.line(text, start, end, number, flagged, bytes);
          },
          continues(number) {
            builder.continues(number);
          },
        };
  return builder.finish(await readLog(source, reader));
}

/**
 * The excerpt as text for a person or a prompt: a headline, then each kept
 * line with its number, and the size of every gap between them.
 */
export function formatExcerpt(excerpt: LogExcerpt): string {
  const width = String(excerpt.totalLines || 1).length;
  const headline = excerpt.failingStep
    ? `Failing step: ${excerpt.failingStep}${excerpt.exitCode === null ? '' : ` (exit code ${excerpt.exitCode})`}`
    : excerpt.exitCode === null
      ? null
      : `Exit code ${excerpt.exitCode}`;
  const out: string[] = headline ? [headline] : [];
  let next = 1;
  for (const line of excerpt.lines) {
    if (line.n > next) out.push(gap(line.n - next, width));
    out.push(`${String(line.n).padStart(width)} | ${line.text}`);
    next = line.n + 1;
  }
  if (excerpt.totalLines >= next) out.push(gap(excerpt.totalLines - next + 1, width));
  if (excerpt.truncated) out.push('(more lines matched than the line budget allows)');
  return out.join('\n');
}

function gap(count: number, width: number): string {
  return `${' '.repeat(width)} … ${count} line${count === 1 ? '' : 's'} omitted`;
}
