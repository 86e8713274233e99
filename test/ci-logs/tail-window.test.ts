import { describe, expect, it } from 'vitest';
import { excerptLog } from '../../src/ci-logs/index.js';
import { isKnownNoise } from '../../src/ci-logs/noise-lines.js';
import { tailNumbers } from './dev-set.js';

/**
 * What `tail -n budget` shows of a failure, the excerpt keeps, where the CI systems' own lines make
 * the tail hard to place: GitLab's and Travis's markers that end in a lone `\r` (two of the excerpt's
 * line numbers, one line of `tail`), a job's verdict written after the runner's cleanup (Jenkins),
 * a block that began above the tail's first line, and a compiler's note under its error.
 */
const E = '\u001b';

/** The failure lines (non-blank, by the excerpt's numbers) that `tail -n budget` keeps and the excerpt drops. */
async function droppedFromTail(
  lines: string[],
  failure: string[],
  budget: number,
  chunked = false,
): Promise<string[]> {
  const text = `${lines.join('\n')}\n`;
  // Chunks that each end right after a `\r`: whether it ends a line is known only from the next.
  const source = chunked ? text.split(/(?<=\r)/).map((part) => Buffer.from(part)) : text;
  const excerpt = await excerptLog(source, { maxLines: budget });
  const kept = new Set(excerpt.lines.map((line) => line.n));
  const tail = tailNumbers(text, budget).numbers;
  const numbered = text.split(/\r\n|\n|\r/);
  return numbered.flatMap((line, index) =>
    failure.includes(line) && tail.has(index + 1) && !kept.has(index + 1) ? [line] : [],
  );
}

const passing = (count: number) =>
  Array.from({ length: count }, (_, index) => `  ✓ adds item ${index} (1 ms)`);
const frames = Array.from({ length: 12 }, (_, index) => `    at step${index} (src/cart.js:${index + 10}:5)`);
const error = ['Error: the discount took the total below zero', ...frames];

describe('the tail of a GitLab job log', () => {
  const section = (edge: 'start' | 'end', name: string, title = '') =>
    `${E}[0Ksection_${edge}:1732521600:${name}\r${E}[0K${title ? `${E}[0K${E}[36;1m${title}${E}[0;m` : ''}`;
  const cleanup = ['archive_cache_on_failure', 'upload_artifacts_on_failure', 'cleanup_file_variables'];
  const log = [
    `${E}[0KRunning with gitlab-runner 17.5.3 (12030cf4)${E}[0;m`,
    section('start', 'step_script', 'Executing "step_script" stage of the job script'),
    `${E}[32;1m$ npm test${E}[0;m`,
    ...passing(80),
    ...error,
    section('end', 'step_script'),
    ...cleanup.flatMap((name) => [section('start', name, `Running ${name}`), 'done', section('end', name)]),
    `${E}[31;1mERROR: Job failed: exit code 1${E}[0;m`,
  ];

  it('counts a section marker and its title as the one line `tail` counts', async () => {
    for (let budget = 12; budget <= 24; budget++) {
      expect({ budget, dropped: await droppedFromTail(log, error, budget) }).toEqual({ budget, dropped: [] });
    }
  });

  it('counts so when the log arrives in chunks cut right after each `\\r`', async () => {
    for (let budget = 12; budget <= 24; budget++) {
      expect({ budget, dropped: await droppedFromTail(log, error, budget, true) }).toEqual({
        budget,
        dropped: [],
      });
    }
  });
});

describe('the tail of a Travis job log', () => {
  const clear = `\r${E}[0K`;
  const log = [
    `travis_fold:start:install${clear}travis_time:start:0b1c${clear}$ npm ci`,
    'added 348 packages in 5s',
    `travis_time:end:0b1c:start=1,finish=2,duration=1,event=install${clear}travis_fold:end:install${clear}`,
    `travis_time:start:1a2b${clear}$ npm test`,
    ...passing(80),
    ...error,
    `travis_time:end:1a2b:start=3,finish=4,duration=1,event=script${clear}`,
    `${E}[31;1mThe command "npm test" exited with 1.${E}[0m`,
    ...['cache.2', 'cache.3', 'cache.4'].flatMap((name) => [
      `travis_fold:start:${name}${clear}store build cache`,
      `travis_time:start:3e4f${clear}$ casher push`,
      `travis_time:end:3e4f:start=5,finish=6,duration=1,event=cache${clear}travis_fold:end:${name}${clear}`,
    ]),
    'Done. Your build exited with 1.',
  ];

  it('counts each fold and timer line once, as `tail` does', async () => {
    for (let budget = 12; budget <= 24; budget++) {
      expect({ budget, dropped: await droppedFromTail(log, error, budget) }).toEqual({ budget, dropped: [] });
    }
  });
});

describe('a job verdict after the runner cleans up', () => {
  it("keeps Jenkins' `Finished: FAILURE` beside the step's error when the tail shows both", async () => {
    const verdicts = ['ERROR: script returned exit code 1', 'Finished: FAILURE'];
    const log = [
      'Started by an SCM change',
      '[Pipeline] Start of Pipeline',
      '[Pipeline] stage',
      '[Pipeline] { (Test)',
      '[Pipeline] sh',
      '+ npm test',
      ...passing(60),
      ...error,
      '[Pipeline] }',
      '[Pipeline] // stage',
      '[Pipeline] stage',
      '[Pipeline] { (Declarative: Post Actions)',
      '[Pipeline] junit',
      'Recording test results',
      '[Pipeline] }',
      '[Pipeline] // stage',
      '[Pipeline] End of Pipeline',
      ...verdicts,
    ];
    for (const budget of [4, 8, 12, 30]) {
      expect({ budget, dropped: await droppedFromTail(log, [...error, ...verdicts], budget) }).toEqual({
        budget,
        dropped: [],
      });
    }
  });
});

describe('a block that began above the tail', () => {
  it("keeps the frames the tail shows of a trace whose message is above the tail's first line", async () => {
    const trace = [
      "thread 'finds_no_missing_item' panicked at src/lib.rs:25:52:",
      'called `Option::unwrap()` on a `None` value',
      'stack backtrace:',
      ...Array.from({ length: 6 }, (_, index) => [
        `   ${index}: core::panicking::step_${index}`,
        `             at /rustc/5980761/library/core/src/panicking.rs:${index + 70}:5`,
      ]).flat(),
      'note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.',
    ];
    const log = [
      '##[group]Run cargo test',
      '##[endgroup]',
      ...passing(80),
      ...trace,
      '',
      'error: test failed',
    ];
    for (let budget = 3; budget <= 14; budget++) {
      expect({ budget, dropped: await droppedFromTail(log, trace, budget) }).toEqual({ budget, dropped: [] });
    }
  });
});

describe("a compiler's note", () => {
  it('goes on with the diagnostic before it, so it is no noise to cut first', () => {
    expect(isKnownNoise('src/shop.h:3:6: note: declared here')).toBe(false);
    expect(isKnownNoise('src/coupons.c:4:14: warning: unused variable ‘unused’ [-Wunused-variable]')).toBe(
      true,
    );
  });
});
