import { createReadStream, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { excerptLogThreaded } from '../../src/ci-logs/excerpt-log.js';
import { excerptLog } from '../../src/ci-logs/index.js';
import { DEV_SET, devLogs } from './dev-set.js';

/**
 * A large log is split in a worker thread (src/ci-logs/threaded-lines.ts); smaller ones in the
 * caller's. Both must give the same excerpt, byte for byte, whatever the chunks and wherever
 * the hand-over from one to the other falls.
 */
const GHA_LOGS = ['gradle-2063953546', 'maven-12624254643', 'pytest-2350842179'];

/** Chunks of odd sizes, some of a few bytes, from a fixed seed: cuts inside `\r\n` and UTF-8. */
function* oddChunks(bytes: Buffer): Generator<Uint8Array> {
  let seed = 7;
  for (let offset = 0; offset < bytes.length; ) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const size = 1 + (seed % 2 === 0 ? seed % 40 : seed % 200_000);
    yield bytes.subarray(offset, offset + size);
    offset += size;
  }
}

describe('the excerpt split in a worker thread', () => {
  it('equals the excerpt split in this thread on real Actions logs', async () => {
    for (const name of GHA_LOGS) {
      const path = new URL(`../fixtures/gha-logs/${name}/job.log`, import.meta.url);
      const stream = () => createReadStream(path, { highWaterMark: 64 * 1024 });
      expect(await excerptLogThreaded(stream()), name).toEqual(await excerptLog(stream()));
    }
  });

  it('equals it on every CI system of the development set, in odd chunks', async () => {
    // One log per system (23 each, sorted by system), a different toolchain each: a worker per
    // excerpt costs about a second when it loads the TypeScript sources.
    const sample = devLogs().filter((_, index) => index % 23 === (3 * Math.floor(index / 23)) % 23);
    for (const name of sample) {
      const bytes = readFileSync(new URL(`${name}.log`, DEV_SET));
      const options = { maxLines: 60, maxCharacters: 4000 };
      expect(await excerptLogThreaded(oddChunks(bytes), options), name).toEqual(
        await excerptLog(bytes, options),
      );
    }
  });

  it('goes on where this thread stopped, wherever the hand-over falls', async () => {
    // Open lines, a `\r\n` cut in two, redrawn progress, a GitLab marker ending in `\r`, UTF-8.
    const text =
      'Run tests\n 10%\r 55%\r100%\r\n\u001b[0Ksection_start:1:test\r\u001b[0Kstep\n' +
      `${'x'.repeat(300)}\nFAILED tests/a.py::test_é - assert 1 == 2\r\nerror: it broke ✕\n\nlast`;
    const bytes = Buffer.from(text);
    const expected = await excerptLog(text);
    const endOf = (fragment: string) => bytes.indexOf(fragment) + Buffer.byteLength(fragment);
    const handOvers = [
      0,
      endOf(' 10%'), // a redraw run open
      endOf('100%\r'), // between the `\r` and the `\n` of a `\r\n`
      endOf(':test\r'), // right after a marker's `\r`
      endOf('xxxxx'), // inside a line
      endOf('test_') + 1, // inside a UTF-8 character
      bytes.length,
    ];
    for (const threadAbove of handOvers) {
      const chunks = [...bytes].map((byte) => Uint8Array.of(byte));
      expect(await excerptLogThreaded(chunks, {}, threadAbove), `at ${threadAbove}`).toEqual(expected);
    }
  });

  it('counts the lines of a log with no line break at all', async () => {
    const excerpt = await excerptLogThreaded(['error: no newline', ' at the end']);
    expect(excerpt.totalLines).toBe(1);
    expect(excerpt.lines).toEqual([{ n: 1, text: 'error: no newline at the end' }]);
  });
});
