import { describe, expect, it } from 'vitest';
import { StreamDemuxer } from '../../src/adapters/docker/stream-demuxer.js';

function frame(stream: 1 | 2, text: string): Buffer {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

describe('StreamDemuxer', () => {
  const wire = Buffer.concat([frame(1, 'out one\n'), frame(2, 'err\n'), frame(1, ''), frame(1, 'out two\n')]);

  it('splits frames however the bytes are chunked', () => {
    for (const size of [1, 3, 8, 9, 16, wire.length]) {
      const frames: string[] = [];
      const demuxer = new StreamDemuxer((stream, payload) => frames.push(`${stream}:${payload}`));
      for (let start = 0; start < wire.length; start += size)
        demuxer.push(wire.subarray(start, start + size));
      expect(frames).toEqual(['stdout:out one\n', 'stderr:err\n', 'stdout:out two\n']);
    }
  });

  it('keeps a frame that has not fully arrived', () => {
    const frames: string[] = [];
    const demuxer = new StreamDemuxer((_stream, payload) => frames.push(payload.toString()));
    const whole = frame(1, 'partial');
    demuxer.push(whole.subarray(0, 10));
    expect(frames).toEqual([]);
    demuxer.push(whole.subarray(10));
    expect(frames).toEqual(['partial']);
  });
});
