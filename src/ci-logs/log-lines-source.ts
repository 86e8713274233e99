import { KEYWORDS, opensWithMarker } from './keywords.js';
import { type LineHandler, LineSplitter } from './log-lines.js';
import { ThreadedSplitter } from './threaded-lines.js';

/**
 * A log's lines for the excerpt builder: split in this thread, then, once the
 * log has passed `threadAbove` bytes, in a worker thread that takes over where
 * this thread's splitter stopped (see threaded-lines.ts). `push` returns a
 * promise only when the worker has one to wait for.
 */
export class LogLines {
  private local: LineSplitter | null;
  private remote: ThreadedSplitter | null = null;

  constructor(
    private readonly handler: LineHandler,
    private readonly threadAbove: number,
  ) {
    this.local = new LineSplitter(handler, { keywords: KEYWORDS, opens: opensWithMarker });
  }

  push(chunk: Uint8Array): Promise<void> | undefined {
    const local = this.local;
    if (local === null) return this.remote!.push(chunk);
    if (chunk.length === 0 || local.bytesRead + chunk.length <= this.threadAbove) {
      local.push(chunk);
      return undefined;
    }
    this.remote = new ThreadedSplitter(this.handler, local.handOff());
    this.local = null;
    return this.remote.push(chunk);
  }

  /** The number of lines in the log, once every line has been handled. */
  end(): Promise<number> {
    if (this.local === null) return this.remote!.end();
    this.local.end();
    return Promise.resolve(this.local.lines);
  }

  close(): void {
    this.remote?.close();
  }
}
