import { describe, expect, it } from 'vitest';
import { lineMap, moveToHead } from '../../src/action/head-lines.js';

const HEAD = ['a', 'b', 'c', 'd', 'e'].join('\n');
// The merge commit: the base added two lines at the top and changed `d`.
const MERGED = ['x', 'y', 'a', 'b', 'c', 'D', 'e'].join('\n');
const suggestion = (startLine: number, line: number) => ({ path: 'f.txt', startLine, line, body: 'S' });

describe('lineMap', () => {
  it("gives each line of the checkout its head line, 0 for the base's own lines", () => {
    expect(lineMap(`${HEAD}\n`, `${MERGED}\n`)).toEqual([0, 0, 0, 1, 2, 3, 0, 5]);
  });
});

describe('moveToHead', () => {
  const files = new Map([['f.txt', { head: `${HEAD}\n`, checkedOut: `${MERGED}\n` }]]);

  it("moves a range that is one unbroken run of the head's lines", () => {
    const moved = moveToHead({ comments: [suggestion(3, 5)], leftOver: [] }, files);
    expect(moved).toEqual({ comments: [{ ...suggestion(1, 3) }], leftOver: [] });
  });

  it("leaves out ranges touching the base's lines, and files it cannot read, with their text", () => {
    const moved = moveToHead(
      {
        comments: [suggestion(5, 7), suggestion(1, 3), { ...suggestion(1, 1), path: 'gone.txt' }],
        leftOver: ['earlier'],
      },
      files,
    );
    expect(moved.comments).toEqual([]);
    expect(moved.leftOver).toHaveLength(4);
    expect(moved.leftOver[0]).toBe('earlier');
    expect(moved.leftOver[1]).toMatch(/^f\.txt, lines 5–7 of the merge commit .*\nS$/);
    expect(moved.leftOver[3]).toMatch(/^gone\.txt, lines 1–1/);
  });
});
