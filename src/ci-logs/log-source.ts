import { ANCHORED_KEYWORDS, KEYWORDS, opensWithMarker } from './keywords.js';
import { type LineHandler, LineSplitter } from './log-lines.js';

/** A log as any reader of it takes it: text, bytes, or chunks of either, read once front to back. */
export type LogSource =
  | string
  | Uint8Array
  | AsyncIterable<Uint8Array | string>
  | Iterable<Uint8Array | string>;

/**
 * Feeds every line of `source` to `handler`, flagged by the first look of keywords.ts.
 * Returns the number of lines read.
 */
export async function readLog(source: LogSource, handler: LineHandler): Promise<number> {
  const splitter = new LineSplitter(handler, {
    keywords: KEYWORDS,
    anchored: ANCHORED_KEYWORDS,
    opens: opensWithMarker,
  });
  if (typeof source === 'string' || source instanceof Uint8Array) {
    splitter.push(toBytes(source));
  } else if (Symbol.asyncIterator in source) {
    for await (const chunk of source) splitter.push(toBytes(chunk));
  } else {
    for (const chunk of source) splitter.push(toBytes(chunk));
  }
  splitter.end();
  return splitter.lines;
}

function toBytes(chunk: Uint8Array | string): Uint8Array {
  return typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
}
