import { describe, expect, it } from 'vitest';
import { excerptLog, formatExcerpt } from '../../src/ci-logs/index.js';
import { type LineFlags, LineSplitter, MAX_LINE_BYTES } from '../../src/ci-logs/log-lines.js';

/** Every line the splitter delivers, with its number. */
function split(chunks: Uint8Array[]): { lines: [number, string][]; total: number } {
  const lines: [number, string][] = [];
  const splitter = new LineSplitter(
    {
      line: (text, start, end, number) =>
        lines.push([number, Buffer.from(text.slice(start, end), 'latin1').toString('utf8')]),
    },
    { keywords: /error/g, opens: () => false },
  );
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return { lines, total: splitter.lines };
}

/** The input cut in two at every byte, and fed one byte at a time. */
function everySplit(text: string): Uint8Array[][] {
  const bytes = Buffer.from(text, 'utf8');
  const ways: Uint8Array[][] = [[...bytes].map((byte) => Uint8Array.of(byte))];
  for (let cut = 0; cut <= bytes.length; cut++) ways.push([bytes.subarray(0, cut), bytes.subarray(cut)]);
  return ways;
}

describe('line numbers', () => {
  it('count `\\n`, `\\r\\n` and a lone `\\r` as one break each, as `split(/\\r\\n|\\n|\\r/)` does', () => {
    const text = 'one\r\ntwo\nthree\rfour\n\nsix';
    expect(split([Buffer.from(text)]).total).toBe(text.split(/\r\n|\n|\r/).length);
    expect(split([Buffer.from('a\n')]).total).toBe(1);
    expect(split([Buffer.from('')]).total).toBe(0);
  });

  it('do not depend on where chunks end, even inside `\\r\\n` or a UTF-8 character', () => {
    const text = 'ok\r\n● fail é\rredrawn\r\n\nlast ✕';
    const expected = split([Buffer.from(text)]);
    for (const chunks of everySplit(text)) expect(split(chunks)).toEqual(expected);
  });
});

/** The numbers of the lines the splitter flags, the input fed in the given chunks. */
function flagged(chunks: Uint8Array[], flags: LineFlags): number[] {
  const numbers: number[] = [];
  const splitter = new LineSplitter(
    {
      line: (_text, _start, _end, number, isFlagged) => {
        if (isFlagged) numbers.push(number);
      },
    },
    flags,
  );
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return numbers;
}

describe('keywords', () => {
  const never = () => false;
  const text = [
    'sh: 1: jest: not found',
    'found nothing, not found',
    'ot found',
    'x ot foun',
    'd',
    'pkg/a_test.go:12: want 1',
    'a_test.py and _test.go without the colon',
    '_test.go:',
    'ok found\rnot found\rdone',
    'an error',
    'nothing here',
  ].join('\n');

  it('flag the same lines searched by an anchor as in the one pattern, wherever the chunks end', () => {
    const asPattern = flagged([Buffer.from(text)], { keywords: /error|ot found|_test\.go:/g, opens: never });
    expect(asPattern).toEqual([1, 2, 3, 6, 8, 12]);
    for (const chunks of everySplit(text)) {
      const anchored = flagged(chunks, {
        keywords: /error/g,
        anchored: [
          { word: 'ot found', anchor: 'found' },
          { word: '_test.go:', anchor: '_test.' },
        ],
        opens: never,
      });
      expect(anchored).toEqual(asPattern);
    }
  });
});

describe('carriage-return redraws', () => {
  it('show a progress bar once, in its final state, under that state’s own line number', async () => {
    const log = 'Downloading\n 10%\r 55%\r100%\nDone\n';
    const excerpt = await excerptLog(log);
    expect(excerpt.lines).toEqual([
      { n: 1, text: 'Downloading' },
      { n: 4, text: '100%' },
      { n: 5, text: 'Done' },
    ]);
    expect(excerpt.totalLines).toBe(5);
  });

  it('keep the last non-empty state when the bar ends with a bare `\\r`', async () => {
    const excerpt = await excerptLog('50%\r100%\r\r\nnext');
    expect(excerpt.lines).toEqual([
      { n: 2, text: '100%' },
      { n: 4, text: 'next' },
    ]);
  });
});

describe('long and odd lines', () => {
  it('keep the first bytes of an endless line and still number what follows', () => {
    const long = 'x'.repeat(MAX_LINE_BYTES * 3);
    const { lines, total } = split([
      Buffer.from(long.slice(0, 5000)),
      Buffer.from(`${long.slice(5000)}\nnext\n`),
    ]);
    expect(total).toBe(2);
    expect(lines[0]?.[1].length).toBe(MAX_LINE_BYTES);
    expect(lines[1]).toEqual([2, 'next']);
  });

  it('drop ANSI colours and control characters but keep UTF-8 text', async () => {
    const excerpt = await excerptLog('\u001b[31m✕ fails\u001b[0m\u0000 ünïcode\n');
    expect(excerpt.lines).toEqual([{ n: 1, text: '✕ fails ünïcode' }]);
  });
});

describe('reading', () => {
  it('takes a string, bytes, or an async iterable of chunks', async () => {
    const text = 'build\nerror: it broke\n';
    async function* chunks() {
      yield 'build\nerr';
      yield Buffer.from('or: it broke\n');
    }
    const fromString = await excerptLog(text);
    expect(await excerptLog(Buffer.from(text))).toEqual(fromString);
    expect(await excerptLog(chunks())).toEqual(fromString);
  });

  it('pulls one chunk at a time from a long stream', async () => {
    let pulled = 0;
    async function* endless() {
      for (let index = 0; index < 2000; index++) {
        pulled++;
        yield `chunk ${index}: ${'compiling module and printing progress '.repeat(40)}\n`;
      }
      yield 'error: the last module failed\n';
    }
    const excerpt = await excerptLog(endless(), { maxLines: 10 });
    expect(pulled).toBe(2000);
    expect(excerpt.lines.map((line) => line.text)).toContain('error: the last module failed');
    expect(excerpt.lines.length).toBeLessThanOrEqual(10);
  });
});

describe('formatExcerpt', () => {
  it('numbers kept lines and says how many lines each gap leaves out', async () => {
    const log = [
      ...Array.from({ length: 300 }, (_, index) => `step ${index}`),
      'fatal: not a git repository',
      'bye',
    ].join('\n');
    const text = formatExcerpt(await excerptLog(log, { maxLines: 5 }));
    expect(text).toContain('301 | fatal: not a git repository');
    expect(text).toMatch(/… \d+ lines omitted/);
  });
});
