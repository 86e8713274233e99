import { describe, expect, it } from 'vitest';
import { CappedOutput, omissionMarker } from '../../src/sandbox/capped-output.js';
import { OutputRecorder } from '../../src/sandbox/output-recorder.js';

describe('CappedOutput', () => {
  it('keeps everything under the limit', () => {
    const output = new CappedOutput(100);
    output.push(Buffer.from('hello '));
    output.push(Buffer.from('world'));
    expect(output.toString()).toBe('hello world');
    expect(output.truncated).toBe(false);
  });

  it('keeps head and tail and marks how much was cut, whatever the chunking', () => {
    const text = Array.from({ length: 1000 }, (_, index) => `${index}`).join('\n');
    for (const chunkSize of [1, 7, 64, 5000]) {
      const output = new CappedOutput(40);
      for (let start = 0; start < text.length; start += chunkSize) {
        output.push(Buffer.from(text.slice(start, start + chunkSize)));
      }
      expect(output.truncated).toBe(true);
      expect(output.omittedBytes).toBe(text.length - 40);
      // The cuts move to line breaks, so no line (and no credential in it) is cut in half.
      const head = text.slice(0, text.slice(0, 20).lastIndexOf('\n') + 1);
      const tail = text.slice(-20).slice(text.slice(-20).indexOf('\n') + 1);
      expect(output.toString()).toBe(
        `${head}${omissionMarker(text.length - head.length - tail.length)}${tail}`,
      );
    }
  });

  it('decodes invalid UTF-8 as replacement characters and does not split a character at the cut', () => {
    const output = new CappedOutput(8);
    output.push(Buffer.from([0xff, 0x61]));
    output.push(Buffer.from('ééééééé'));
    const text = output.toString();
    expect(text.startsWith('\uFFFDa')).toBe(true);
    expect(text.endsWith('éé')).toBe(true);
    expect(text.split(omissionMarker(output.omittedBytes))[1]).not.toContain('\uFFFD');
  });

  it('holds no more than its limit however much is pushed', () => {
    const output = new CappedOutput(1024);
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    for (let index = 0; index < 1000; index++) output.push(chunk);
    expect(output.omittedBytes).toBe(64 * 1024 * 1000 - 1024);
    expect(Buffer.byteLength(output.toString())).toBe(
      1024 + Buffer.byteLength(omissionMarker(output.omittedBytes)),
    );
  });
});

describe('OutputRecorder', () => {
  it('records streams apart and together, in arrival order', () => {
    const recorder = new OutputRecorder(1000);
    recorder.write('stdout', Buffer.from('a'));
    recorder.write('stderr', Buffer.from('b'));
    recorder.write('stdout', Buffer.from('c'));
    expect(recorder.result()).toEqual({ stdout: 'ac', stderr: 'b', output: 'abc', truncated: false });
  });
});
