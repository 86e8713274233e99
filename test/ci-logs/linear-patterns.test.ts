import { describe, expect, it } from 'vitest';
import { isFrameLine } from '../../src/ci-logs/go-traceback.js';
import { pytestVerdictLast } from '../../src/ci-logs/line-kinds.js';
import { codeFrameWeight } from '../../src/ci-logs/line-shape.js';

/**
 * Checks of log lines once written as patterns that backtracked in time the square of a line's
 * length (or worse), now read by hand or respelled: each gives what the former pattern gave on every
 * line built from a few telling pieces, and answers at once on a long hostile line.
 */
const FORMER_VERDICT_LAST =
  /^\S+?(?:::|\.py\b).*? (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)(?: \(.*\))?(?:\s+\[\s*\d{1,3}%\])?$/;
const FORMER_CODE_FRAME = /^(?:>\s*)?\d*\s*\|/;
const FORMER_CALL = /^\S+\(.*\)$/;

/** Every concatenation of up to `count` of `pieces`. */
function lines(pieces: string[], count: number): string[] {
  let level = [''];
  const all = [''];
  for (let size = 1; size <= count; size++) {
    level = level.flatMap((line) => pieces.map((piece) => line + piece));
    for (const line of level) all.push(line);
  }
  return all;
}

/** `count` lines of 5 to 8 pieces each, drawn by a fixed sequence (the same lines every run). */
function randomLines(pieces: string[], count: number): string[] {
  let state = 12345;
  const next = (below: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % below;
  };
  return Array.from({ length: count }, () =>
    Array.from({ length: 5 + next(4) }, () => pieces[next(pieces.length)]).join(''),
  );
}

describe('log-line checks read in linear time', () => {
  it("find pytest's verdict at the end of a line where the pattern did", () => {
    const pieces = [
      'a',
      ' ',
      '::',
      '.py',
      '.pyx',
      ' PASSED',
      ' FAILED',
      'XPASS',
      ' (',
      ')',
      ' [ 5%]',
      '[12%]',
      '%]',
      '\t',
    ];
    const samples = [...lines(pieces, 4), ...randomLines(pieces, 100_000)];
    for (const line of samples)
      expect(pytestVerdictLast(line), JSON.stringify(line)).toBe(FORMER_VERDICT_LAST.exec(line)?.[1]);
  });

  it('read a quoted source line where the pattern did', () => {
    for (const line of lines(['>', ' ', '\t', '1', '|', 'a'], 6))
      expect(codeFrameWeight(line) > 0, JSON.stringify(line)).toBe(FORMER_CODE_FRAME.test(line));
  });

  it("read a Go frame's line where the patterns did", () => {
    for (const line of lines(['a', '(', ')', ' ', '\t', '.', ':1'], 6))
      expect(isFrameLine(line), JSON.stringify(line)).toBe(FORMER_CALL.test(line) || framedOtherwise(line));
  });

  it('answer at once on 16 KB lines built against the former patterns', () => {
    expect(pytestVerdictLast(`[${'::'.repeat(1800)}K${' ERROR (D'.repeat(1800)}S`)).toBeUndefined();
    expect(codeFrameWeight(`>${'\t'.repeat(16_000)}`)).toBe(0);
    expect(isFrameLine(`a${'('.repeat(16_000)}`)).toBe(false);
  });
});

/** The trace's other frame lines: `file.go:12 +0x1f`, `created by …`, elided frames. */
function framedOtherwise(line: string): boolean {
  return (
    /^\S+:\d+(?: \+0x[0-9a-f]+)?$/.test(line) ||
    /^created by \S+(?: in goroutine \d+)?$/.test(line) ||
    /^\.\.\.(?:additional frames elided|\d+ frames elided)\.\.\.$/.test(line)
  );
}
