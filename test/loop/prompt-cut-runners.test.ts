import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { excerptOutput } from '../../src/loop/excerpt.js';

/**
 * The prompt's cut on real output of Jest, pytest, go test and gcc: the excerpt's dev set's recorded
 * runs (test/fixtures/excerpt-dev-set/raw, see test/fixtures/prompt-cut/README.md), each with several
 * failures and the noise a run prints around them. Each failure is marked here by the runner's own
 * structure, apart from the cut's reading: Jest's `●` accounts, pytest's `___ test ___` sections,
 * go test's messages up to `--- FAIL:` (and the panic with its goroutine's stack, and on a timeout the
 * stuck test's goroutine), gcc's diagnostics
 * with their quoted source and notes.
 */
interface Case {
  tool: string;
  /** Each failure, by fragments of its first and last line (`to`), or of the line after it (`before`). */
  failures: { from: string; to?: string; before?: string }[];
  noise: (line: string, index: number, lines: string[]) => boolean;
}

const CASES: Case[] = [
  {
    tool: 'jest',
    failures: [
      { from: '● prices › formats cents', before: '● prices › never discounts' },
      { from: '● prices › never discounts', before: '● prices › finds no missing' },
      { from: '● prices › finds no missing', to: 'at Object.findItem (test/cart.test.js' },
    ],
    noise: (line) => /✓|^\s+\d+:\d+\s+warning\s|^[\w. ]+\|\s+[\d.]+ \||^-+\|/.test(line),
  },
  {
    tool: 'pytest',
    failures: [
      { from: '_ test_format_price _', to: 'tests/test_shop.py:19: AssertionError' },
      { from: '_ test_discount_never_negative _', to: 'tests/test_shop.py:24: AssertionError' },
      { from: '_ test_find_missing_item _', to: 'shop/__init__.py:24: StopIteration' },
    ],
    noise: (line) => / PASSED|DeprecationWarning|^tests\/test_shop\.py::test_legacy_total\[\d\]$/.test(line),
  },
  {
    tool: 'go',
    failures: [
      { from: 'cart_test.go:20: Discount', to: '--- FAIL: TestDiscountNeverNegative' },
      { from: '--- FAIL: TestFindMissing', to: 'testing/testing.go:1493 +0x35f' },
      { from: 'format_test.go:9: Price(100)', to: '--- FAIL: TestPrice' },
    ],
    noise: (line) => /^\s*(?:=== RUN|--- PASS)|^coverage: |^ok {2}\t|^PASS$/.test(line),
  },
  {
    tool: 'go-panic',
    failures: [{ from: 'panic: runtime error', to: 'orders/pool.go:34 +0x1cf' }],
    // The other goroutines' stacks, between the panicking one's and the package's verdict, and passing tests.
    noise: (line, index, lines) =>
      /^\s*(?:=== RUN|--- PASS)|^coverage: |^ok {2}\t|^PASS$/.test(line) ||
      (line.trim() !== '' &&
        index > lines.findIndex((text) => text.includes('orders/pool.go:34 +0x1cf')) &&
        index < lines.findIndex((text) => text.startsWith('FAIL\texample.com/shop/orders'))),
  },
  {
    tool: 'go-timeout',
    failures: [
      { from: 'panic: test timed out', to: 'time/sleep.go:176' },
      { from: '[semacquire]:', to: 'testing/testing.go:1493 +0x35f' },
    ],
    // The goroutines that are not the stuck test's (testing's main, the workers), and passing tests.
    noise: (line, index, lines) =>
      /^\s*(?:=== RUN|--- PASS)|^ok {2}\t|^PASS$/.test(line) ||
      (line.trim() !== '' &&
        index > lines.findIndex((text) => text.includes('time/sleep.go:176')) &&
        index < lines.findIndex((text) => text.startsWith('FAIL\texample.com/shop/batch'))),
  },
  {
    tool: 'gcc',
    failures: [
      { from: 'src/checkout.c:10:16: error', before: 'src/checkout.c:11:8: error' },
      { from: 'src/checkout.c:11:8: error', before: 'src/checkout.c:12:56: error' },
      { from: 'src/checkout.c:12:56: error', before: 'src/checkout.c:9:55: warning' },
    ],
    // The warnings after the errors, each with its quoted source and the function it is in.
    noise: (_line, index, lines) => index >= lines.findIndex((text) => text.includes(': warning: ')),
  },
];

// biome-ignore lint/suspicious/noControlCharactersInRegex: removing colour codes is the point.
const stripAnsi = (text: string) => text.replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '');

function outputOf(tool: string): string {
  const url = new URL(`../fixtures/excerpt-dev-set/raw/${tool}/output.txt`, import.meta.url);
  return readFileSync(url, 'utf8');
}

function failureBlocks(lines: string[], failures: Case['failures']): string[][] {
  return failures.map(({ from, to, before }) => {
    const start = lines.findIndex((line) => line.includes(from));
    const end = lines.findIndex((line, index) => index > start && line.includes((to ?? before)!));
    expect({ from, start, end }).not.toMatchObject({ start: -1 });
    expect(end, `${from}: its end`).toBeGreaterThan(start);
    const block = lines.slice(start, to ? end + 1 : end);
    while (block.at(-1)?.trim() === '') block.pop();
    return block;
  });
}

/** Whether a failure is in the cut whole, not at all, or in part (judged by its lines found nowhere else in the output). */
function kept(cut: string, shown: Set<string>, block: string[], lines: string[]): 'whole' | 'none' | 'split' {
  if (cut.includes(block.join('\n'))) return 'whole';
  const own = block.filter(
    (line) => line.trim() !== '' && lines.filter((other) => other === line).length === 1,
  );
  return own.some((line) => shown.has(line)) ? 'split' : 'none';
}

describe('the prompt cut on real Jest, pytest, go test and gcc output', () => {
  it.each(CASES.map((test) => [test.tool, test] as const))(
    '%s: the first failure whole, no failure split, and noise only once every failure is in',
    (_tool, { tool, failures, noise }) => {
      const output = outputOf(tool);
      const lines = stripAnsi(output).split('\n');
      const blocks = failureBlocks(lines, failures);
      const inBlocks = new Set(blocks.flat());
      const noiseLines = new Set(
        lines.filter((line, index) => noise(line, index, lines) && !inBlocks.has(line)),
      );
      expect(noiseLines.size, tool).toBeGreaterThan(0);
      const step = Math.max(150, Math.floor(output.length / 20));
      let cuts = 0;
      for (let budget = blocks[0]!.join('\n').length + 300; budget < output.length; budget += step) {
        const cut = excerptOutput(output, budget);
        const shown = new Set(cut.split('\n'));
        const at = `${tool} at ${budget}`;
        expect(cut.length, at).toBeLessThanOrEqual(budget);
        const states = blocks.map((block) => kept(cut, shown, block, lines));
        expect(states[0], at).toBe('whole');
        expect(states, at).not.toContain('split');
        const shownNoise = [...shown].filter((line) => noiseLines.has(line));
        if (states.includes('none')) expect(shownNoise, at).toEqual([]);
        cuts++;
      }
      expect(cuts, tool).toBeGreaterThan(3);
    },
  );
});
