import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cutOutput, excerptLog, formatCut } from '../../src/ci-logs/index.js';
import { classify } from '../../src/ci-logs/line-kinds.js';
import { shapeOf } from '../../src/ci-logs/line-shape.js';
import { stripLine } from '../../src/ci-logs/line-text.js';
import { isKnownNoise } from '../../src/ci-logs/noise-lines.js';
import { excerptOutput } from '../../src/loop/excerpt.js';

/**
 * pytest's verdict on each test, as `-v` prints it (`path::test FAILED [ 89%]`, the progress column
 * last) and as xdist's `-n` prints it (`[gw1] [ 86%] FAILED path::test`): FAILED and ERROR are a
 * failing test, PASSED, SKIPPED and XFAIL noise, in the excerpt and in the prompt's cut alike. The
 * real runs are test/fixtures/pytest-verdicts/ (see its README).
 */
const kindOf = (line: string) => classify(shapeOf(stripLine(line)));

function recorded(name: string): string {
  return readFileSync(new URL(`../fixtures/pytest-verdicts/${name}.txt`, import.meta.url), 'utf8');
}

describe('pytest verdict lines', () => {
  it.each([
    'tests/test_x.py::test_y FAILED                                          [ 98%]',
    'tests/test_x.py::test_y ERROR                                           [100%]',
    'tests/test_x.py::TestCart::test_total[a b-1] FAILED                     [  3%]',
    'tests/test_x.py::test_y ERROR',
    'tests/test_x.py::test_y FAILED',
    '[gw0] [ 50%] FAILED tests/test_x.py::test_y ',
    '[gw3] [100%] ERROR tests/test_x.py::test_y',
    '[gw0] FAILED tests/test_x.py::test_y',
    '2024-01-01T10:00:00.0000000Z tests/test_x.py::test_y FAILED          [ 98%]',
  ])('a failing test: %s', (line) => {
    expect(kindOf(line)).toMatchObject({ kind: 'test', weight: 90 });
    expect(isKnownNoise(line)).toBe(false);
  });

  it.each([
    'tests/test_x.py::test_y PASSED                                          [ 42%]',
    'tests/test_x.py::test_y SKIPPED (needs a Windows host)                  [ 43%]',
    'tests/test_x.py::test_y XFAIL (restock do...)                           [ 97%]',
    'tests/test_x.py::test_error_path PASSED                                 [ 44%]',
    'tests/test_x.py::test_y SKIPPED',
    'tests/test_x.py::test_y SKIPPED (needs a Windows host)',
    '[gw1] [ 91%] SKIPPED tests/test_x.py::test_y ',
    '[gw1] [ 95%] XFAIL tests/test_x.py::test_failing_case ',
    '[gw0] [  2%] PASSED tests/test_x.py::test_error[1] ',
    'XFAIL tests/test_x.py::test_y - restock does not validate counts yet',
    'SKIPPED [1] tests/test_x.py:33: needs a Windows host',
    'tests/test_x.py::test_failing_case[a b] ',
  ])('noise: %s', (line) => {
    expect(kindOf(line).kind).toBe('noise');
    expect(isKnownNoise(line)).toBe(true);
  });

  it('an unexpected pass is neither: it fails the run only under xfail_strict, where pytest says FAILED', () => {
    for (const line of [
      'tests/test_x.py::test_y XPASS (reserve rounds ...)                      [100%]',
      '[gw1] [ 97%] XPASS tests/test_x.py::test_y ',
    ]) {
      expect(kindOf(line).kind, line).toBe('plain');
      expect(isKnownNoise(line), line).toBe(false);
    }
  });

  it.each([
    ['Gradle’s verdict (noise by output-noise.ts)', 'ShopTest > testFormatsPrice PASSED', 'plain'],
    ['cargo’s verdict', 'test tests::formats_price ... FAILED', 'test'],
    ['a progress bar', '[gw0] [ 50%] Downloading wheels', 'plain'],
    ['a sentence', 'See tests/test_x.py::test_y for what ERROR means here (details)', 'error'],
  ])('other lines keep their class: %s', (_name, line, kind) => {
    expect(kindOf(line).kind).toBe(kind);
  });
});

const VERDICTS = /^(?:\[gw\d\] \[\s*\d+%\] (?:FAILED|ERROR) |\S+::\S+ (?:FAILED|ERROR)\s+\[)/;
const NOISE = /PASSED|SKIPPED|XFAIL /;

describe.each(['verbose', 'xdist'])('pytest %s output', (name) => {
  const output = recorded(name);
  const lines = output.split('\n');
  const verdicts = lines.filter((line) => VERDICTS.test(line));
  const from = lines.findIndex((line) => line.includes('ERROR at setup of test_load_levels'));
  const to = lines.findIndex((line) => line.startsWith('stock/__init__.py:13: FileNotFoundError'));
  const firstFailure = lines.slice(from, to + 1).join('\n');

  it('the prompt cut keeps the first failure whole and drops passing tests first', () => {
    expect(verdicts).toHaveLength(3);
    expect(from).toBeGreaterThan(0);
    let cuts = 0;
    for (let budget = firstFailure.length + 300; budget < output.length; budget += 250) {
      const cut = excerptOutput(output, budget);
      const shown = cut.split('\n');
      expect(cut.length, `${budget}`).toBeLessThanOrEqual(budget);
      expect(cut, `${budget}`).toContain(firstFailure);
      // Noise only once every verdict and the whole report are in.
      if (shown.some((line) => NOISE.test(line))) {
        expect(shown, `${budget}`).toEqual(expect.arrayContaining(verdicts));
        expect(cut, `${budget}`).toContain(lines.slice(from).join('\n').trimEnd());
      }
      cuts++;
    }
    expect(cuts).toBeGreaterThan(5);
  });

  it('the excerpt keeps every verdict and no passing test', async () => {
    const excerpt = await excerptLog(output, { maxLines: 40 });
    const texts = excerpt.lines.map((line) => line.text.trimEnd());
    expect(texts).toEqual(expect.arrayContaining(verdicts.map((line) => line.trimEnd())));
    expect(texts.filter((line) => NOISE.test(line))).toEqual([]);
  });
});

it('the cut fits its budget with the gap marks of xdist’s redrawn start-up line (`\r`)', () => {
  const output = recorded('xdist');
  expect(output).toContain('\r[gw0]');
  for (let budget = 1000; budget < output.length; budget += 100) {
    const cut = formatCut(cutOutput(output, { maxCharacters: budget }));
    expect(cut.length, `${budget}`).toBeLessThanOrEqual(budget);
  }
});
