import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { excerptHashes, GOLDEN } from './excerpt-golden.js';

/**
 * The excerpt keeps exactly what it kept when the fixture was written, on every stored log and
 * budget: speed work on the pass must not change a single kept line, number or headline.
 */
describe('excerpt golden output', () => {
  it('is unchanged on every stored log at every budget', async () => {
    const expected = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, string>;
    const actual = await excerptHashes();
    expect(Object.keys(actual).length).toBeGreaterThan(400);
    const changed = Object.keys(expected).filter((key) => actual[key] !== expected[key]);
    expect(changed).toEqual([]);
    expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  }, 120_000);
});
