import { Worker } from 'node:worker_threads';
import { replayBatch } from './line-batches.js';
import type { LineHandler, SplitterState } from './log-lines.js';
import type { SplitReply, SplitRequest } from './split-protocol.js';

/**
 * Splitting and flagging lines (log-lines.ts, keywords.ts) is pure, and about
 * half of a large excerpt's time; the builder that reads the lines keeps state
 * from line to line. So a large log is split in a worker thread while this
 * thread builds the excerpt from the lines of the previous chunks: the two
 * halves run on two cores.
 *
 * Chunks go over as copies of at most a megabyte, and come back as batches of
 * line ranges (line-batches.ts). At most MAX_IN_FLIGHT chunks are out at a
 * time: reading waits for the builder, so memory stays flat however fast the
 * source is and however slow the builder.
 */
const PIECE_BYTES = 1 << 20;
const MAX_IN_FLIGHT = 4;

export class ThreadedSplitter {
  private readonly worker: Worker;
  private readonly replies: SplitReply[] = [];
  private wake: (() => void) | null = null;
  private failure: Error | null = null;
  private inFlight = 0;
  private total: number | null = null;
  private piece = new Uint8Array(PIECE_BYTES);
  private filled = 0;

  constructor(
    private readonly handler: LineHandler,
    state: SplitterState,
  ) {
    this.worker = startWorker();
    this.worker.on('message', (reply: SplitReply) => this.arrive(reply));
    this.worker.on('error', (error: Error) => this.fail(error));
    this.worker.on('exit', (code) => {
      if (this.total === null)
        this.fail(new Error(`The excerpt's splitting thread exited with code ${code}.`));
    });
    this.post({ kind: 'resume', state });
  }

  async push(chunk: Uint8Array): Promise<void> {
    for (let offset = 0; offset < chunk.length; ) {
      const taken = Math.min(chunk.length - offset, PIECE_BYTES - this.filled);
      this.piece.set(chunk.subarray(offset, offset + taken), this.filled);
      this.filled += taken;
      offset += taken;
      if (this.filled === PIECE_BYTES) await this.send();
    }
  }

  /** The number of lines in the log, once every line has been handled. */
  async end(): Promise<number> {
    if (this.filled > 0) await this.send();
    this.post({ kind: 'end' });
    this.inFlight++;
    while (this.total === null) await this.next();
    return this.total;
  }

  /**
   * Chunks are gathered into pieces of a megabyte, a copy in a buffer of their own that is moved
   * over: one message per megabyte however small the source's chunks, and no view of a buffer
   * (which would clone the whole buffer under it).
   */
  private async send(): Promise<void> {
    const bytes = this.piece.subarray(0, this.filled);
    this.post({ kind: 'chunk', bytes }, [bytes.buffer as ArrayBuffer]);
    this.piece = new Uint8Array(PIECE_BYTES);
    this.filled = 0;
    this.inFlight++;
    while (this.inFlight >= MAX_IN_FLIGHT) await this.next();
  }

  close(): void {
    void this.worker.terminate();
  }

  private post(request: SplitRequest, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(request, transfer);
  }

  /** Replays the oldest batch that has come back, waiting for one if none has. */
  private async next(): Promise<void> {
    while (this.replies.length === 0) {
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
    const reply = this.replies.shift()!;
    this.inFlight--;
    replayBatch(reply.batch, this.handler);
    if (reply.total !== null) this.total = reply.total;
  }

  private arrive(reply: SplitReply): void {
    this.replies.push(reply);
    this.wakeUp();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.wakeUp();
  }

  private wakeUp(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}

/**
 * The worker's entry sits beside this file: compiled (dist/) or bundled by
 * scripts/build-action.mjs (dist-action/) as `split-worker.js`. Run from the
 * TypeScript sources (tests, tsx), the worker registers tsx to load them.
 */
function startWorker(): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./split-worker.js', import.meta.url));
  const entry = JSON.stringify(new URL('./split-worker.ts', import.meta.url).href);
  return new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${entry}); });`, {
    eval: true,
  });
}
