import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FixProgress } from '../../src/cli/fix-progress.js';
import { excerptOutput } from '../../src/loop/excerpt.js';
import { describeResult, generateMessages, latestRunRoom, promptBudget } from '../../src/loop/prompts.js';
import { exec } from '../report/fixtures/exec-results.js';

/**
 * The prompt's cut and the terminal's view of a failed run, on real outputs of tape with nyc,
 * mocha with nyc, and eslint as a pretest (test/fixtures/prompt-cut, recorded by its record.sh):
 * five failing tests, the first of which points at the bug (money.js's toCents), and noise
 * (lint warnings, passing tests, nyc's coverage table) around them.
 */
const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/prompt-cut/${name}`, import.meta.url), 'utf8');

const OUTPUTS = ['eslint-pretest-tape-nyc.txt', 'tape-nyc.txt', 'mocha-nyc.txt'] as const;

/** Each failure's lines, as the runner wrote them: TAP's `not ok` to its `...`; mocha's `N) ` entries to the next. */
function failureBlocks(output: string): string[][] {
  const lines = output.split('\n');
  const starts = lines.flatMap((line, index) => (/^not ok \d|^ {2}\d\) \S/.test(line) ? [index] : []));
  const listed = starts.filter((start) => !/^ {4}\d\)/.test(lines[start]!));
  return listed.map((start, order) => {
    const tap = lines[start]!.startsWith('not ok');
    const stop = tap
      ? lines.indexOf('  ...', start) + 1
      : (listed[order + 1] ?? lines.findIndex((line, index) => index > start && line.startsWith('---')));
    const block = lines.slice(start, stop);
    while (block.at(-1)?.trim() === '') block.pop();
    return block;
  });
}

const isNoise = (line: string) =>
  /^\s+\d+:\d+\s+warning\s|^ok \d+ |✔|^[- ]*[\w./ ]*\s+\|\s+[\d.]+ \||^-+\|/.test(line);

/** Whether a failure is in the cut whole, not at all, or in part (judged by the lines no other failure has). */
function kept(cut: string, block: string[], all: string[][]): 'whole' | 'none' | 'split' {
  if (cut.includes(block.join('\n'))) return 'whole';
  const others = new Set(all.filter((other) => other !== block).flat());
  const own = block.filter((line) => line.trim() !== '' && !others.has(line));
  return own.some((line) => cut.includes(line)) ? 'split' : 'none';
}

describe('the prompt cut on real test-runner output', () => {
  it('holds five failures in each recorded output, and the eslint one is 40 KB that opens on lint noise', () => {
    for (const name of OUTPUTS) expect(failureBlocks(fixture(name))).toHaveLength(5);
    const output = fixture('eslint-pretest-tape-nyc.txt');
    expect(output.length).toBeGreaterThanOrEqual(40_000);
    const firstFailure = output.indexOf('not ok 1');
    expect(output.slice(0, firstFailure).match(/ warning /g)?.length).toBeGreaterThanOrEqual(100);
  });

  it('keeps the first failure whole in the prompt and drops the lint noise first (40 KB, lint first, five failures)', () => {
    const output = fixture('eslint-pretest-tape-nyc.txt');
    const [first, ...later] = failureBlocks(output);
    const result = exec(1, output, 2100);
    // A budget whose failure room holds about two of the five failures.
    const budget = promptBudget(3000, 8);
    const latestFailure = describeResult(result, latestRunRoom(budget));
    const [, user] = generateMessages({
      task: { description: 'Make `npm test` pass.', command: 'npm test' },
      timeoutSeconds: 60,
      currentDiff: '',
      history: [],
      latestFailure,
      budget,
    });
    const prompt = user!.content as string;
    expect(prompt).toContain(first!.join('\n'));
    expect(prompt).toContain('actual:   110.00000000000001');
    expect(later.some((block) => kept(prompt, block, [first!, ...later]) === 'none')).toBe(true);
    expect(prompt.split('\n').filter(isNoise)).toEqual([]);
    expect(prompt).not.toContain('% Stmts');
  });

  it('never splits a failure, keeps the first one whole, and lets noise in only once every failure is in', () => {
    for (const name of OUTPUTS) {
      const output = fixture(name);
      const blocks = failureBlocks(output);
      for (let budget = 1200; budget <= output.length; budget += 1500) {
        const cut = excerptOutput(output, budget);
        expect(cut.length, `${name} at ${budget}`).toBeLessThanOrEqual(budget);
        const states = blocks.map((block) => kept(cut, block, blocks));
        expect(states, `${name} at ${budget}`).not.toContain('split');
        expect(states[0], `${name} at ${budget}`).toBe('whole');
        const noise = cut.split('\n').filter(isNoise);
        if (noise.length > 0) expect(states, `${name} at ${budget}: ${noise[0]}`).not.toContain('none');
      }
    }
  });
});

describe("the terminal's view of a failed run", () => {
  it('shows the failing tests, not the coverage table the output ends with', () => {
    for (const name of OUTPUTS) {
      const output = fixture(name);
      expect(output.trimEnd().split('\n').at(-1)).toMatch(/^-+\|/);
      let text = '';
      const progress = new FixProgress({ write: (chunk: string) => (text += chunk) }, { isTTY: false });
      progress.sink({
        type: 'executed',
        attempt: 1,
        command: 'npm test',
        result: exec(1, output, 2100),
      });
      progress.stop();
      const shown = text
        .split('\n')
        .filter((line) => line.startsWith('    │ ') && !line.startsWith('    │ … '));
      expect(shown.length).toBeLessThanOrEqual(20);
      const [first] = failureBlocks(output);
      expect(text, name).toContain(`    │ ${first![0]}`);
      expect(text).toMatch(/110\.00000000000001/);
      expect(
        shown.filter((line) => isNoise(line.slice(6))),
        name,
      ).toEqual([]);
    }
  });
});

describe('the prompt cut on an error', () => {
  it('keeps a traceback whole with its exception, drops the download log, and keeps the end', () => {
    const traceback = [
      'Traceback (most recent call last):',
      '  File "/app/stats.py", line 4, in <module>',
      '    print(mean(values))',
      '  File "/app/stats.py", line 2, in mean',
      '    return sum(v) / len(v)',
      'ZeroDivisionError: division by zero',
    ];
    const output = [
      ...Array.from({ length: 300 }, (_, index) => `Downloading package-${index}-1.0.tar.gz (12 kB)`),
      ...traceback,
      ...Array.from({ length: 200 }, (_, index) => `cleanup step ${index} done`),
    ].join('\n');
    const cut = excerptOutput(output, 900);
    expect(cut.length).toBeLessThanOrEqual(900);
    expect(cut).toContain(`[... 300 lines omitted ...]\n${traceback.join('\n')}\n[...`);
    expect(cut).toMatch(/cleanup step 199 done$/);
    expect(cut).not.toContain('Downloading');
  });
});
