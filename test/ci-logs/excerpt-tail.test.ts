import { describe, expect, it } from 'vitest';
import { excerptLog } from '../../src/ci-logs/index.js';
import { tailNumbers } from './dev-set.js';
import { excerptDevSet } from './excerpt-dev-set.js';

/**
 * Never worse than the tail: every failure line `tail -n budget` keeps, the excerpt keeps too,
 * at the same line budget — on every log of the excerpt's development set (real tools' output)
 * and on generated logs that mix failures into noise at random.
 */
async function droppedFromTail(text: string, failure: Set<number>, budget: number): Promise<number[]> {
  const excerpt = await excerptLog(text, { maxLines: budget });
  const kept = new Set(excerpt.lines.map((line) => line.n));
  const tail = tailNumbers(text, budget).numbers;
  expect(excerpt.lines.length).toBeLessThanOrEqual(budget);
  return [...failure].filter((number) => tail.has(number) && !kept.has(number));
}

describe('the excerpt beside the tail', () => {
  it.each(excerptDevSet().map((log) => [log.name, log] as const))(
    'keeps every failure line the tail keeps: %s',
    async (_name, log) => {
      for (const budget of [30, 60, 100, 150]) {
        expect({ budget, dropped: await droppedFromTail(log.text, log.failure, budget) }).toEqual({
          budget,
          dropped: [],
        });
      }
    },
  );

  it('keeps every failure line the tail keeps on generated logs', async () => {
    const random = seeded(31);
    for (let round = 0; round < 60; round++) {
      const { text, failure } = generatedLog(random);
      const budget = 20 + Math.floor(random() * 130);
      expect({ round, budget, dropped: await droppedFromTail(text, failure, budget) }).toEqual({
        round,
        budget,
        dropped: [],
      });
    }
  });
});

const NOISE: ((index: number) => string)[] = [
  (index) => `    ✓ adds ${index} loaves (${index % 7} ms)`,
  (index) => `[INFO] Downloading from central: https://repo.example/org/lib/${index}/lib-${index}.pom`,
  (index) =>
    `  lib${index}.js  |   ${50 + (index % 50)} |    75 |   100 |   ${60 + (index % 40)} | ${index}-${index + 4}`,
  (index) => `  ${index}:3  warning  'unused' is assigned a value but never used  no-unused-vars`,
  (index) => `saved logs/part-${index}.log`,
  (index) => `tests/test_shop.py::test_subtotal[${index}] PASSED`,
  (index) => `processing batch ${index}: ok`,
];

/** Failure blocks in the shapes runners print: a verdict or error, its message, frames. */
const FAILURES: ((index: number) => string[])[] = [
  (index) => [
    `  ● prices › case ${index}`,
    '',
    '    expect(received).toBe(expected)',
    `    Expected: "${index}"`,
    '    Received: "0"',
    '',
    `      at Object.toBe (test/case${index}.test.js:${index}:7)`,
  ],
  (index) => [`FAILED tests/test_shop.py::test_case_${index} - AssertionError: assert 0 == ${index}`],
  (index) => [
    `Error: case ${index} broke`,
    `    at run (src/case${index}.js:${index}:3)`,
    '    at process.processImmediate (node:internal/timers:483:21)',
  ],
  (index) => [`src/case${index}.c:${index}:5: error: expected ';' before 'return'`],
];

function generatedLog(random: () => number): { text: string; failure: Set<number> } {
  const lines: string[] = [];
  const failure = new Set<number>();
  const parts = 5 + Math.floor(random() * 30);
  for (let part = 0; part < parts; part++) {
    if (random() < 0.25) {
      const block = FAILURES[Math.floor(random() * FAILURES.length)]!(part + 1);
      for (const line of block) {
        lines.push(line);
        if (line.trim() !== '') failure.add(lines.length);
      }
    } else {
      const noise = NOISE[Math.floor(random() * NOISE.length)]!;
      const count = 1 + Math.floor(random() * 40);
      for (let index = 0; index < count; index++) lines.push(noise(part * 100 + index));
    }
  }
  return { text: `${lines.join('\n')}\n`, failure };
}

function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}
