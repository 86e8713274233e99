import { parentPort } from 'node:worker_threads';
import { KEYWORDS, opensWithMarker } from './keywords.js';
import { BatchRecorder } from './line-batches.js';
import { LineSplitter } from './log-lines.js';
import type { SplitReply, SplitRequest } from './split-protocol.js';

/**
 * The worker thread of a large excerpt (see threaded-lines.ts): splits the
 * chunks it is sent into lines and flags them, the pure half of the work,
 * and answers each chunk with the batch of lines it completed.
 */
const port = parentPort;
if (port === null) throw new Error('split-worker.ts runs as a worker thread only (see threaded-lines.ts).');

const recorder = new BatchRecorder();
const splitter = new LineSplitter(recorder, { keywords: KEYWORDS, opens: opensWithMarker });

port.on('message', (request: SplitRequest) => {
  if (request.kind === 'resume') {
    splitter.resume(request.state);
    return;
  }
  if (request.kind === 'chunk') splitter.push(request.bytes);
  else splitter.end();
  const batch = recorder.take();
  const reply: SplitReply = { batch, total: request.kind === 'end' ? splitter.lines : null };
  port.postMessage(reply, [batch.ranges.buffer as ArrayBuffer, batch.numbers.buffer as ArrayBuffer]);
});
