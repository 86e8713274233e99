import { describe, expect, it } from 'vitest';
import {
  BODY_BUDGET,
  type CutOrder,
  cutNote,
  fitBody,
  GITHUB_BODY_LIMIT,
  hardLimit,
  type Section,
  shorten,
} from '../../src/report/limits.js';

const section = (cut: CutOrder, text: string): Section => ({
  cut,
  text,
  render: (shown) => `<${cut}>\n${shown}\n</${cut}>\n`,
});

const lines = (count: number, prefix: string) =>
  Array.from({ length: count }, (_unused, index) => `${prefix} line ${index}`).join('\n');

describe('cutNote', () => {
  it('says how much was cut and why', () => {
    expect(cutNote(123456)).toBe("[… 123,456 characters cut to fit GitHub's limit …]");
  });
});

describe('shorten', () => {
  it('leaves text that fits alone', () => {
    expect(shorten('short', 100, 'output')).toBe('short');
  });

  it("keeps an output's head, tail and error lines, with the cut marked", () => {
    const output = `${lines(2000, 'progress')}\nValueError: bad row\n${lines(2000, 'more')}\nFAILED test_io.py`;
    const shown = shorten(output, 5000, 'output');
    expect(shown.length).toBeLessThanOrEqual(5000);
    expect(shown.length).toBeGreaterThan(4500);
    expect(shown).toMatch(/^\[… [\d,]+ characters cut to fit GitHub's limit …\]/);
    expect(shown).toContain('progress line 0');
    expect(shown).toContain('ValueError: bad row');
    expect(shown.endsWith('FAILED test_io.py')).toBe(true);
  });

  it('keeps the beginning of a diff, cut at a line end, with the note last', () => {
    const diff = lines(5000, '+added');
    const shown = shorten(diff, 3000, 'diff');
    expect(shown.length).toBeLessThanOrEqual(3000);
    expect(shown.startsWith('+added line 0\n')).toBe(true);
    expect(shown).toMatch(/\n\+added line \d+\n\[… [\d,]+ characters cut to fit GitHub's limit …\]$/);
  });
});

describe('fitBody', () => {
  it('joins the parts unchanged when they fit', () => {
    expect(fitBody(['# Title\n', section('output', 'ok'), 'end'])).toBe(
      '# Title\n<output>\nok\n</output>\nend',
    );
  });

  it('cuts outputs before diffs', () => {
    const output = lines(10_000, 'output'); // about 150 KB
    const diff = lines(2000, '+diff'); // about 30 KB
    const body = fitBody(['head\n', section('output', output), section('diff', diff)]);
    expect(body.length).toBeLessThanOrEqual(BODY_BUDGET);
    expect(body).toContain(diff);
    expect(body).toContain("characters cut to fit GitHub's limit");
    expect(body).toContain('output line 9999');
  });

  it('cuts the largest section of a kind first, down to a common size', () => {
    const large = lines(8000, 'large');
    const small = lines(300, 'small');
    const body = fitBody([section('output', large), section('output', small)], 20_000);
    expect(body.length).toBeLessThanOrEqual(20_000);
    expect(body).toContain(small);
    expect(body).toContain("characters cut to fit GitHub's limit");
  });

  it('cuts diffs when outputs alone are not enough, and prose last', () => {
    const prose = lines(200, 'prose');
    const body = fitBody(
      [section('prose', prose), section('output', lines(5000, 'out')), section('diff', lines(5000, '+d'))],
      20_000,
    );
    expect(body.length).toBeLessThanOrEqual(20_000);
    expect(body).toContain(prose);
    expect(body.match(/characters cut to fit/g)).toHaveLength(2);
  });

  it('cuts hard at the limit when the fixed parts alone are too long', () => {
    const body = fitBody(['x'.repeat(70_000), section('output', 'tail')]);
    expect(body.length).toBeLessThanOrEqual(GITHUB_BODY_LIMIT);
    expect(body).toMatch(/characters cut to fit GitHub's limit …\]\n$/);
  });
});

describe('hardLimit', () => {
  it('is a no-op under the limit', () => {
    expect(hardLimit('abc', 3)).toBe('abc');
  });

  it('returns at most the limit', () => {
    expect(hardLimit('y'.repeat(1000), 200).length).toBeLessThanOrEqual(200);
  });
});
