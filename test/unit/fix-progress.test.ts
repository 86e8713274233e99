import { afterEach, describe, expect, it, vi } from 'vitest';
import { FixProgress, type ProgressOptions } from '../../src/cli/fix-progress.js';
import { plain } from '../../src/cli/terminal.js';
import type { LoopEvent } from '../../src/loop/events.js';
import { loopLimitsSchema } from '../../src/loop/task.js';
import { exec } from '../report/fixtures/exec-results.js';

const CLEAR_LINE = '\r\x1b[2K';
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding escape codes is the point.
const ANY_ESCAPE = /\x1b/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding color codes is the point.
const COLOR_CODES = /\x1b\[\d+m/g;

const usage = { promptTokens: 900, completionTokens: 100, totalTokens: 1000 };
const traceback = [
  'Traceback (most recent call last):',
  '  File "stats.py", line 4, in <module>',
  '    print(statistics.mean(values))',
  "NameError: name 'statistics' is not defined",
  '',
].join('\n');
const failingTests = `${Array.from({ length: 24 }, (_, index) => `test ${index + 1} ok`).join('\n')}\n\x1b[31mFAILED\x1b[0m test 25\r\n`;
const diff = [
  'diff --git a/stats.py b/stats.py',
  '--- a/stats.py',
  '+++ b/stats.py',
  '@@ -1,2 +1,2 @@',
  '-from helpers import load',
  '+import statistics',
  ' values = load()',
  '',
].join('\n');

/** A run with every kind of step: setup, a failed attempt, a rejected one, and the fix. */
const events: LoopEvent[] = [
  {
    type: 'started',
    task: { description: 'It fails', command: 'python3 stats.py', setupCommands: ['pip install -e .'] },
    limits: loopLimitsSchema.parse({ maxAttempts: 3, commandTimeoutSeconds: 60 }),
    model: 'gpt-4.1-mini',
  },
  { type: 'setup-ran', command: 'pip install -e .', result: exec(0, '', 1250) },
  { type: 'reproduced', status: 'failing', runs: [exec(1, traceback, 80)] },
  { type: 'attempt-started', attempt: 1, maxAttempts: 3 },
  {
    type: 'model-responded',
    attempt: 1,
    purpose: 'generate',
    content: null,
    toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"stats.py","startLine":1}' }],
    usage,
    costUsd: 0.0004,
    promptTokensEstimate: 900,
    durationMs: 1200,
    total: { usage, costUsd: 0.0004 },
  },
  {
    type: 'tool-called',
    attempt: 1,
    name: 'read_file',
    arguments: '{"path":"stats.py","startLine":1}',
    result: '1: values = load()',
    ok: true,
  },
  {
    type: 'tool-called',
    attempt: 1,
    name: 'search_text',
    arguments: '{"text":"load"}',
    result: 'Error: no match\nmore detail',
    ok: false,
  },
  {
    type: 'proposal',
    attempt: 1,
    proposal: { analysis: 'The module statistics is never imported.\nImport it.', edits: [] },
  },
  { type: 'edits-applied', attempt: 1, paths: ['stats.py'], diff },
  { type: 'executed', attempt: 1, command: 'python3 stats.py', result: exec(1, failingTests, 2300) },
  { type: 'retry-decided', attempt: 1, retry: true, reason: 'The import is right, one test still fails.' },
  { type: 'attempt-started', attempt: 2, maxAttempts: 3 },
  { type: 'proposal', attempt: 2, proposal: { analysis: 'Fix test 25.', edits: [] } },
  { type: 'edits-rejected', attempt: 2, problems: ['stats.py: the search text was not found.'] },
  { type: 'attempt-started', attempt: 3, maxAttempts: 3 },
  { type: 'proposal', attempt: 3, proposal: { analysis: 'Fix test 25 properly.', edits: [] } },
  { type: 'edits-applied', attempt: 3, paths: ['stats.py'], diff },
  { type: 'executed', attempt: 3, command: 'python3 stats.py', result: exec(0, 'mean: 2.5\n', 90) },
  {
    type: 'reflected',
    reflection: {
      summary: 'Imported statistics',
      rootCause: 'stats.py used statistics.mean without importing it',
      changes: 'Added the import',
      confidence: 'high',
      risks: ['Other scripts may have the same problem'],
    },
  },
  {
    type: 'finished',
    outcome: 'fixed',
    reason: 'the command passed on attempt 3',
    attempts: 3,
    diff,
    changedFiles: ['stats.py'],
    total: { usage: { promptTokens: 11_000, completionTokens: 1345, totalTokens: 12_345 }, costUsd: 0.0123 },
    durationMs: 75_400,
  },
];

const expectedText = `Fixing \`python3 stats.py\` with gpt-4.1-mini: up to 3 attempts, 60 s per run
setup \`pip install -e .\`: exit 0 after 1.3 s
reproduce: failing: exit 1 after 80 ms
    │ Traceback (most recent call last):
    │   File "stats.py", line 4, in <module>
    │     print(statistics.mean(values))
    │ NameError: name 'statistics' is not defined

attempt 1 of 3
  tool read_file path=stats.py startLine=1
  tool search_text text=load → Error: no match
  analysis: The module statistics is never imported.
    Import it.
  applied edits to stats.py:
    diff --git a/stats.py b/stats.py
    --- a/stats.py
    +++ b/stats.py
    @@ -1,2 +1,2 @@
    -from helpers import load
    +import statistics
     values = load()
  run: exit 1 after 2.3 s
    │ … 5 earlier lines
${Array.from({ length: 19 }, (_, index) => `    │ test ${index + 6} ok`).join('\n')}
    │ FAILED test 25
  retry: yes, The import is right, one test still fails.

attempt 2 of 3
  analysis: Fix test 25.
  edits rejected, nothing was run:
    - stats.py: the search text was not found.

attempt 3 of 3
  analysis: Fix test 25 properly.
  applied edits to stats.py:
    diff --git a/stats.py b/stats.py
    --- a/stats.py
    +++ b/stats.py
    @@ -1,2 +1,2 @@
    -from helpers import load
    +import statistics
     values = load()
  run: exit 0 after 90 ms
    │ mean: 2.5

reflection: Imported statistics
  root cause: stats.py used statistics.mean without importing it
  confidence: high
  risks:
    - Other scripts may have the same problem

✔ fixed: the command passed on attempt 3 (3 attempts, 12,345 tokens, $0.0123, 1 min 15 s)
`;

function render(options: ProgressOptions, list: LoopEvent[] = events): string {
  let text = '';
  const progress = new FixProgress({ write: (chunk: string) => (text += chunk) }, options);
  for (const event of list) progress.sink(event);
  progress.stop();
  return text;
}

/** What a terminal would show at the end: each line-clear wipes the unfinished line, colors dropped. */
function screen(text: string): string {
  let shown = '';
  for (const [index, part] of text.split(CLEAR_LINE).entries()) {
    if (index > 0) shown = shown.slice(0, shown.lastIndexOf('\n') + 1);
    shown += part;
  }
  return shown.replace(COLOR_CODES, '');
}

describe('FixProgress', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes one plain line per step when the output is not a terminal', () => {
    const text = render({ isTTY: false, color: true, showCost: true });
    expect(text).toBe(expectedText);
    expect(text).not.toMatch(ANY_ESCAPE);
  });

  it('says when the test guard refused the edits rather than that they did not apply', () => {
    const reason = 'test_stats.py: a skip marker was added.';
    const refused = events.map((event) =>
      event.type === 'edits-rejected'
        ? {
            ...event,
            problems: ['The repository protects its tests (tests: protect).', reason],
            guardFindings: [{ path: 'test_stats.py', kind: 'skip-added' as const, reason }],
          }
        : event,
    );
    expect(render({ isTTY: false }, refused)).toContain(
      `  edits refused by the test guard, nothing was run:\n    - The repository protects its tests (tests: protect).\n    - ${reason}\n`,
    );
  });

  it('leaves the cost out when prices are unknown', () => {
    const text = render({ isTTY: false, showCost: false });
    expect(text).toContain(
      '✔ fixed: the command passed on attempt 3 (3 attempts, 12,345 tokens, 1 min 15 s)',
    );
    expect(text).not.toContain('$');
  });

  it('colors the diff and the statuses on a terminal, and shows the same lines once spinners are wiped', () => {
    const text = render({ isTTY: true, color: true, showCost: true });
    expect(text).toContain('\x1b[32m+import statistics\x1b[39m');
    expect(text).toContain('\x1b[31m-from helpers import load\x1b[39m');
    expect(text).toContain('\x1b[36m@@ -1,2 +1,2 @@\x1b[39m');
    expect(text).toContain('run: \x1b[31mexit 1\x1b[39m after 2.3 s');
    expect(text).toContain('\x1b[32m✔ fixed\x1b[39m');
    // The command's own color codes never come through: only ours.
    expect(text).not.toContain('\x1b[0m');
    expect(screen(text)).toBe(expectedText);
  });

  it('shows a spinner while the model thinks or the command runs, cleared before each line', () => {
    const text = render({ isTTY: true, color: false });
    expect(text).toContain(`${CLEAR_LINE}⠋ running \`pip install -e .\``);
    expect(text).toContain('the model is thinking');
    expect(text).toContain('running `python3 stats.py`');
    expect(text).toContain('the model is reflecting');
    expect(text).toContain(`${CLEAR_LINE}  retry: yes`);
    // NO_COLOR: the spinner still moves, but nothing is colored.
    expect(text.replace(COLOR_CODES, '')).toBe(text);
    expect(screen(text)).toBe(expectedText.replace('$0.0123, ', ''));
  });

  it('redraws the spinner on a timer and stops it for good at the end', () => {
    vi.useFakeTimers();
    let text = '';
    const progress = new FixProgress(
      { write: (chunk: string) => (text += chunk) },
      { isTTY: true, color: false, spinnerIntervalMs: 100 },
    );
    progress.sink({ type: 'attempt-started', attempt: 1, maxAttempts: 2 });
    const frames = () => text.split('the model is thinking').length - 1;
    expect(frames()).toBe(1);
    vi.advanceTimersByTime(1050);
    expect(frames()).toBe(11);
    expect(text).toContain('the model is thinking (1 s)');
    progress.note('Wrote the fix.');
    expect(text).toContain(`${CLEAR_LINE}Wrote the fix.\n`);
    progress.stop();
    const ended = text;
    vi.advanceTimersByTime(1000);
    expect(text).toBe(ended);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('reports a failed setup, flaky and passing reproductions, and a timeout', () => {
    const text = render({ isTTY: false }, [
      { type: 'setup-ran', command: 'npm ci', result: exec(1, 'npm ERR! missing lockfile\n', 3000) },
      {
        type: 'reproduced',
        status: 'flaky',
        runs: [exec(0, '', 10), exec(0, '', 10), exec(3, 'boom\n', 12)],
      },
      { type: 'reproduced', status: 'passing', runs: [exec(0, '', 10), exec(0, '', 10), exec(0, '', 10)] },
      {
        type: 'executed',
        attempt: 1,
        command: 'sleep 99',
        result: exec(124, 'waiting\n', 60_000, { end: 'timed-out', reason: 'timed out after 60 s' }),
      },
    ]);
    expect(text).toBe(
      [
        'setup `npm ci`: exit 1 after 3.0 s',
        '    │ npm ERR! missing lockfile',
        'reproduce: flaky: passed 2 of 3 runs, then exit 3 after 12 ms',
        '    │ boom',
        'reproduce: passing: exit 0 in 3 runs, nothing to fix',
        '  run: exit 124 (timed out after 60 s) after 1 min 0 s',
        '    │ waiting',
        '',
      ].join('\n'),
    );
  });

  it('ends with the outcome and the reason when the run is not fixed', () => {
    const text = render({ isTTY: false }, [
      {
        type: 'retry-decided',
        attempt: 2,
        retry: false,
        reason: 'The data file is missing; code cannot fix that.',
      },
      {
        type: 'finished',
        outcome: 'declined',
        reason: 'The data file is missing; code cannot fix that.',
        attempts: 1,
        diff: '',
        changedFiles: [],
        total: { usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 }, costUsd: 0 },
        durationMs: 512,
      },
    ]);
    expect(text).toBe(
      '  retry: no, The data file is missing; code cannot fix that.\n\n' +
        '✖ declined: The data file is missing; code cannot fix that. (1 attempt, 0 tokens, 512 ms)\n',
    );
  });
});

describe('plain', () => {
  it('removes escape sequences, carriage-return redraws and control characters', () => {
    expect(
      plain('\x1b[1;31mred\x1b[0m \x1b]0;title\x07ok\r\nprogress 10%\rprogress 100%\n\x07bell\ttab'),
    ).toBe('red ok\nprogress 100%\nbell\ttab');
  });
});
