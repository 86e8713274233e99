import { describe, expect, it } from 'vitest';
import { excerptLog } from '../../src/ci-logs/index.js';

/** Jest's account of one failing test: its name, the assertion, the quoted source, the frame. */
function jestFailure(index: number): string[] {
  return [
    `  ● prices › case ${index}`,
    '',
    '    expect(received).toBe(expected) // Object.is equality',
    '',
    `    Expected: "${index}.50"`,
    `    Received: "${index}.5"`,
    '',
    `      ${10 + index} |   test('case ${index}', () => {`,
    `    > ${11 + index} |     expect(formatPrice(${index}50)).toBe('$${index}.50');`,
    '         |                              ^',
    `      ${12 + index} |   });`,
    '',
    `      at Object.toBe (test/cart.test.js:${11 + index}:30)`,
    '',
  ];
}

const lint = Array.from(
  { length: 60 },
  (_, index) => `  ${index + 1}:3  warning  'unused' is assigned a value but never used  no-unused-vars`,
);
const coverage = Array.from(
  { length: 30 },
  (_, index) => `  file${index}.js |   91.66 |       75 |     100 |    87.5 | ${index}`,
);

describe('the first failure of each kind', () => {
  it('is kept whole before later failures, and the noise goes first', async () => {
    const log = [
      '> eslint src',
      ...lint,
      '✖ 60 problems (0 errors, 60 warnings)',
      '> jest --coverage',
      'FAIL test/cart.test.js',
      ...[1, 2, 3, 4, 5].flatMap(jestFailure),
      '------------|---------|----------|---------|---------|-------------------',
      ...coverage,
      'Tests:       5 failed, 120 passed, 125 total',
    ].join('\n');
    const excerpt = await excerptLog(log, { maxLines: 30 });
    const kept = excerpt.lines.map((line) => line.text);
    for (const line of jestFailure(1).filter((text) => text.trim() !== '')) expect(kept).toContain(line);
    expect(kept.some((text) => text.includes('warning'))).toBe(false);
    expect(kept.some((text) => text.includes('file3.js'))).toBe(false);
    expect(kept).toContain('Tests:       5 failed, 120 passed, 125 total');
  });
});
