import { describe, expect, it } from 'vitest';
import { SYSTEM_FAILURE, SYSTEM_FAILURE_PARTS } from '../../src/ci-logs/line-kinds.js';

/**
 * A line the alternative matches, spelled out from the pattern's own text: word boundaries and the
 * line's end dropped, optional groups left out, a case class taken at its first letter, `l+` as `l`.
 * An alternative written with a construct this does not know yields a sample the pattern misses,
 * and the first test says so.
 */
function sampleOf(alternative: string): string {
  return alternative
    .replaceAll('\\b', '')
    .replace(/\$$/, '')
    .replace(/\(\?:[^)]*\)\?/g, '')
    .replace(/\[([A-Za-z])[A-Za-z]\]/g, '$1')
    .replace(/([a-z])\+/g, '$1');
}

const alternatives = SYSTEM_FAILURE.source.split('|');

describe("SYSTEM_FAILURE's parts", () => {
  it('spell a line for every phrase of the pattern', () => {
    expect(alternatives.length).toBeGreaterThan(30);
    for (const alternative of alternatives)
      expect(sampleOf(alternative), alternative).toMatch(SYSTEM_FAILURE);
  });

  it('stand in every phrase, so a line without one needs no look for the phrases', () => {
    for (const alternative of alternatives)
      expect(sampleOf(alternative), alternative).toMatch(SYSTEM_FAILURE_PARTS);
  });

  it('leave out ordinary failure lines, which then skip the whole pattern', () => {
    for (const line of [
      'Error: expected 2 to equal 3',
      'FAILED tests/test_a.py::test_b - assert 1 == 2',
      'npm ERR! code 1',
    ])
      expect(line).not.toMatch(SYSTEM_FAILURE_PARTS);
  });
});
