import type { LineBatch } from './line-batches.js';
import type { SplitterState } from './log-lines.js';

/** What the excerpt's main thread sends its splitting worker (see threaded-lines.ts). */
export type SplitRequest =
  | { kind: 'resume'; state: SplitterState }
  | { kind: 'chunk'; bytes: Uint8Array }
  | { kind: 'end' };

/** One answer per chunk, and one for the end, which carries the number of lines in the log. */
export interface SplitReply {
  batch: LineBatch;
  total: number | null;
}
