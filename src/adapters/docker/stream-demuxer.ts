/**
 * Splits Docker's multiplexed attach stream (used when Tty is off) into
 * stdout and stderr. Each frame is an 8-byte header — stream id, three zero
 * bytes, a big-endian uint32 length — followed by that many bytes. Frames
 * arrive split across and merged within network chunks in any way.
 */
export type DemuxedStream = 'stdout' | 'stderr';

export class StreamDemuxer {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly onFrame: (stream: DemuxedStream, payload: Buffer) => void) {}

  push(chunk: Buffer): void {
    let buffer = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    while (buffer.length >= 8) {
      const length = buffer.readUInt32BE(4);
      if (buffer.length < 8 + length) break;
      const stream: DemuxedStream = buffer[0] === 2 ? 'stderr' : 'stdout';
      if (length > 0) this.onFrame(stream, buffer.subarray(8, 8 + length));
      buffer = buffer.subarray(8 + length);
    }
    this.pending = buffer.length > 0 ? Buffer.from(buffer) : Buffer.alloc(0);
  }
}
