import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GoTraceback } from '../../src/ci-logs/go-traceback.js';
import { excerptLog } from '../../src/ci-logs/index.js';

/**
 * A Go panic's dump, from a real `GOTRACEBACK=all go test -v ./...` run (the excerpt's dev set,
 * test/fixtures/excerpt-dev-set/raw/go-panic): the panic, the stack of the goroutine that
 * panicked, then 103 other goroutines (`[chan receive]`, `[IO wait]`, `[select]`), `FAIL` for the
 * package, and two passing packages after it. The excerpt keeps the panic and its goroutine's
 * stack whole with the package's verdict; the other goroutines are the first to go.
 */
const OUTPUT = readFileSync(
  new URL('../fixtures/excerpt-dev-set/raw/go-panic/output.txt', import.meta.url),
  'utf8',
);
const LINES = OUTPUT.split('\n');
const numberOf = (fragment: string) => LINES.findIndex((line) => line.includes(fragment)) + 1;
const PANIC = numberOf('panic: runtime error: index out of range');
/** The panicking goroutine's stack ends at its `created by` frame's file line. */
const STACK_END = numberOf('orders/pool.go:34 +0x1cf');
const VERDICT = numberOf('FAIL\texample.com/shop/orders');
const OTHERS = LINES.flatMap((line, index) =>
  index + 1 > STACK_END && index + 1 < VERDICT && line.trim() !== '' ? [index + 1] : [],
);

function failure(): number[] {
  const numbers: number[] = [];
  for (let number = PANIC; number <= STACK_END; number++)
    if (LINES[number - 1]!.trim() !== '') numbers.push(number);
  return [...numbers, VERDICT];
}

async function kept(text: string, budget: number): Promise<Set<number>> {
  const excerpt = await excerptLog(text, { maxLines: budget });
  expect(excerpt.lines.length).toBeLessThanOrEqual(budget);
  return new Set(excerpt.lines.map((line) => line.n));
}

describe("a Go panic's goroutine dump", () => {
  it('is read from a real run with other goroutines blocked', () => {
    expect(LINES[PANIC + 1]).toMatch(/^goroutine \d+ \[running\]:$/);
    expect(OTHERS.length).toBeGreaterThan(120);
    const statuses = LINES.slice(STACK_END, VERDICT).filter((line) => line.startsWith('goroutine '));
    for (const status of ['chan receive', 'IO wait', 'select'])
      expect(statuses.some((line) => line.includes(`[${status}]:`))).toBe(true);
  });

  it('reads every other goroutine as such, however many, and the panic with its goroutine as the block', () => {
    const traceback = new GoTraceback();
    const reads = LINES.map((line, index) => {
      const read = traceback.active ? traceback.read(line, index + 1) : 'after';
      if (read === 'after') traceback.opens(line, index + 1, 0);
      return read;
    });
    expect(OTHERS.filter((number) => reads[number - 1] !== 'other' || !traceback.isOther(number))).toEqual(
      [],
    );
    expect(reads[VERDICT - 1]).toBe('after');
    expect(traceback.panics().map(({ lines }) => lines.map(({ number }) => number))).toEqual([
      failure().slice(0, -1),
    ]);
  });

  it('keeps the panic, its goroutine whole and the verdict; the other goroutines go first', async () => {
    for (const budget of [20, 40, 60, 150]) {
      const lines = await kept(OUTPUT, budget);
      expect({ budget, missing: failure().filter((number) => !lines.has(number)) }).toEqual({
        budget,
        missing: [],
      });
      // The tail is passing packages: no other goroutine's line comes before it.
      if (budget < 150) expect(OTHERS.filter((number) => lines.has(number))).toEqual([]);
    }
  });

  it('keeps them when the dump ends the log, and shows other goroutines only in the room left', async () => {
    // The same run cut where its crashing package's output ends: what a run of that package alone prints.
    const text = `${LINES.slice(0, VERDICT).join('\n')}\n`;
    for (const budget of [20, 40, 60]) {
      const lines = await kept(text, budget);
      expect({ budget, missing: failure().filter((number) => !lines.has(number)) }).toEqual({
        budget,
        missing: [],
      });
      const others = OTHERS.filter((number) => lines.has(number));
      // What is left of the budget, from the end of the dump back.
      expect(others).toEqual(OTHERS.slice(OTHERS.length - others.length));
      expect(others.length).toBeLessThanOrEqual(budget - failure().length);
    }
  });
});

describe("a test's timeout in Go", () => {
  it("keeps the stuck test's goroutine with the alarm's panic, and lets the other goroutines go", async () => {
    // A real `go test -timeout 3s` run (the dev set's go-timeout): a WaitGroup waited on for ever.
    const url = new URL('../fixtures/excerpt-dev-set/raw/go-timeout/output.txt', import.meta.url);
    const output = readFileSync(url, 'utf8');
    const lines = output.split('\n');
    const at = (test: (line: string) => boolean) => lines.findIndex(test) + 1;
    const stuck = at((line) => line.endsWith('[semacquire]:'));
    const stuckEnd = at((line) => line.includes('testing/testing.go:1493 +0x35f'));
    const verdict = at((line) => line.startsWith('FAIL\texample.com/shop/batch'));
    const workers = lines.flatMap((line, index) =>
      index + 1 > stuckEnd && index + 1 < verdict && line.trim() !== '' ? [index + 1] : [],
    );
    expect(workers.length).toBeGreaterThan(40);
    const wanted = [at((line) => line.startsWith('panic: test timed out')), verdict];
    for (let number = stuck; number <= stuckEnd; number++) wanted.push(number);
    for (const budget of [25, 40, 60]) {
      const shown = await kept(output, budget);
      expect({ budget, missing: wanted.filter((number) => !shown.has(number)) }).toEqual({
        budget,
        missing: [],
      });
      expect(workers.filter((number) => shown.has(number))).toEqual([]);
    }
  });
});

describe("go test's local directory mode", () => {
  it('keeps the panic, its goroutine, `exit status 2` and the verdict among passing tests', async () => {
    const url = new URL('../fixtures/go-dump/local-mode.txt', import.meta.url);
    const dump = readFileSync(url, 'utf8').trimEnd().split('\n');
    // Around it, as when a script runs go test in one package folder after another: the passing
    // tests of the dev set's real go run.
    const passing = LINES.filter((line) => /^\s*(?:=== RUN|--- PASS)/.test(line)).slice(0, 200);
    const text = `${[...passing.slice(0, 100), ...dump, ...passing.slice(100)].join('\n')}\n`;
    const excerpt = await excerptLog(text, { maxLines: 12 });
    const shown = excerpt.lines.map((line) => line.text);
    expect(shown).toEqual(expect.arrayContaining(dump.filter((line) => line.trim() !== '')));
  });
});
