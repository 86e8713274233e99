import type { LoopEvent, LoopOutcome, ReproductionStatus, Spend } from '../../src/loop/events.js';
import type { Edit, Reflection } from '../../src/loop/schemas.js';
import { loopLimitsSchema } from '../../src/loop/task.js';
import type { TestFinding } from '../../src/loop/test-guard/findings.js';
import type { TokenUsage, ToolCall } from '../../src/model/language-model.js';
import { type JobContext, type JobView, jobView } from '../../src/report/job-view.js';
import type { ExecResult } from '../../src/sandbox/sandbox.js';
import { mentionTrigger } from '../fakes/job-requests.js';

/**
 * Hand-made event lists of realistic runs, with fixed ids, durations and
 * usage, so rendered bodies are stable snapshots. A Python script that
 * uses `statistics` without importing it is the running example.
 */
export const JOB_ID = 'job-7f3a9c';
export const COMMAND = 'python stats.py data.csv';
export const STATUS_URL = 'https://github.com/acme/reports/issues/12#issuecomment-1001';
export const CHECK_RUN_URL = 'https://github.com/acme/reports/runs/5001';
export const PULL_REQUEST_URL = 'https://github.com/acme/reports/pull/13';
export const MODEL = 'gpt-4.1-mini';
export const HEAD_SHA = '9fceb02d0ae598e95dc970b74767f19372d61af8';
export const COMMIT_URL = `https://github.com/acme/reports/commit/${HEAD_SHA}`;

export function attemptUrl(attempt: number): string {
  return `https://github.com/acme/reports/issues/12#issuecomment-${1001 + attempt}`;
}

export function exec(
  exitCode: number,
  output: string,
  durationMs: number,
  extra: Partial<ExecResult> = {},
): ExecResult {
  return {
    exitCode,
    end: 'exited',
    reason: null,
    stdout: output,
    stderr: '',
    output,
    truncated: false,
    durationMs,
    ...extra,
  };
}

export function timedOut(output: string, seconds: number): ExecResult {
  return exec(124, output, seconds * 1000, { end: 'timed-out', reason: `timed out after ${seconds} s` });
}

export const NAME_ERROR = [
  'Reading data.csv',
  'Traceback (most recent call last):',
  '  File "/workspace/stats.py", line 9, in <module>',
  '    print(f"mean: {statistics.mean(values):.2f}")',
  '                   ^^^^^^^^^^',
  "NameError: name 'statistics' is not defined",
  '',
].join('\n');

export const IMPORT_ERROR = [
  'Traceback (most recent call last):',
  '  File "/workspace/stats.py", line 2, in <module>',
  '    from math import mean',
  "ImportError: cannot import name 'mean' from 'math' (unknown location)",
  '',
].join('\n');

export const SUCCESS_OUTPUT = 'Reading data.csv\nmean: 4.25\nmedian: 4.00\n';

export const FIRST_DIFF = [
  'diff --git a/stats.py b/stats.py',
  '--- a/stats.py',
  '+++ b/stats.py',
  '@@ -1,4 +1,5 @@',
  ' import csv',
  '+from math import mean',
  ' import sys',
  ' ',
  ' ',
  '@@ -8,3 +9,3 @@',
  '     values = [float(row[1]) for row in csv.reader(handle)]',
  '-print(f"mean: {statistics.mean(values):.2f}")',
  '+print(f"mean: {mean(values):.2f}")',
  ' print(f"median: {statistics.median(values):.2f}")',
  '',
].join('\n');

export const SECOND_DIFF = [
  'diff --git a/stats.py b/stats.py',
  '--- a/stats.py',
  '+++ b/stats.py',
  '@@ -1,5 +1,5 @@',
  ' import csv',
  '-from math import mean',
  '+import statistics',
  ' import sys',
  ' ',
  ' ',
  '@@ -9,3 +9,3 @@',
  '     values = [float(row[1]) for row in csv.reader(handle)]',
  '-print(f"mean: {mean(values):.2f}")',
  '+print(f"mean: {statistics.mean(values):.2f}")',
  ' print(f"median: {statistics.median(values):.2f}")',
  '',
].join('\n');

export const FINAL_DIFF = [
  'diff --git a/stats.py b/stats.py',
  '--- a/stats.py',
  '+++ b/stats.py',
  '@@ -1,4 +1,5 @@',
  ' import csv',
  '+import statistics',
  ' import sys',
  ' ',
  ' ',
  '',
].join('\n');

export const REFLECTION: Reflection = {
  summary:
    'Import the statistics module that stats.py uses. The script called statistics.mean without importing it.',
  rootCause: '`stats.py` calls `statistics.mean` and `statistics.median`, but never imports `statistics`.',
  changes:
    'Added `import statistics` at the top of `stats.py`; the first attempt tried `math.mean`, which does not exist.',
  confidence: 'high',
  risks: ['Other scripts in `tools/` may share the same missing import.'],
};

export const STATUS_TRIGGER = mentionTrigger({ issueNumber: 12 });

export function context(overrides: Partial<JobContext> = {}): JobContext {
  return {
    jobId: JOB_ID,
    repository: 'acme/reports',
    trigger: STATUS_TRIGGER,
    requestedBy: 'alice',
    statusCommentUrl: STATUS_URL,
    checkRunUrl: CHECK_RUN_URL,
    commit: { sha: HEAD_SHA, url: COMMIT_URL },
    ...overrides,
  };
}

/** Builds events in loop order, keeping the running spend as the loop would. */
export class EventList {
  readonly events: LoopEvent[] = [];
  private usage: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  private costUsd = 0;

  constructor(
    private readonly command = COMMAND,
    private readonly maxAttempts = 3,
  ) {}

  started(setupCommands: string[] = []): this {
    const limits = loopLimitsSchema.parse({ maxAttempts: this.maxAttempts, commandTimeoutSeconds: 120 });
    const task = { description: 'stats.py crashes', command: this.command, setupCommands };
    return this.add({ type: 'started', task, limits, model: MODEL });
  }

  setup(command: string, result: ExecResult): this {
    return this.add({ type: 'setup-ran', command, result });
  }

  reproduced(status: ReproductionStatus, runs: ExecResult[]): this {
    return this.add({ type: 'reproduced', status, runs });
  }

  attempt(attempt: number): this {
    return this.add({ type: 'attempt-started', attempt, maxAttempts: this.maxAttempts });
  }

  model(
    attempt: number | null,
    purpose: string,
    content: string | null,
    prompt: number,
    completion: number,
    toolCalls: ToolCall[] = [],
  ): this {
    const usage = { promptTokens: prompt, completionTokens: completion, totalTokens: prompt + completion };
    const costUsd = (prompt * 0.4 + completion * 1.6) / 1_000_000;
    this.usage = {
      promptTokens: this.usage.promptTokens + prompt,
      completionTokens: this.usage.completionTokens + completion,
      totalTokens: this.usage.totalTokens + prompt + completion,
    };
    this.costUsd += costUsd;
    return this.add({
      type: 'model-responded',
      attempt,
      purpose,
      content,
      toolCalls,
      usage,
      costUsd,
      promptTokensEstimate: prompt,
      durationMs: 1800 + completion,
      total: this.total(),
    });
  }

  tool(attempt: number, name: string, args: string, result: string, ok = true): this {
    return this.add({ type: 'tool-called', attempt, name, arguments: args, result, ok });
  }

  proposal(attempt: number, analysis: string, edits: Edit[]): this {
    return this.add({ type: 'proposal', attempt, proposal: { analysis, edits } });
  }

  applied(attempt: number, diff: string, paths = ['stats.py']): this {
    return this.add({ type: 'edits-applied', attempt, paths, diff });
  }

  /** Edits that did not apply, or with `guardFindings` edits the test guard refused. */
  rejected(attempt: number, problems: string[], guardFindings?: TestFinding[]): this {
    return this.add({
      type: 'edits-rejected',
      attempt,
      problems,
      ...(guardFindings ? { guardFindings } : {}),
    });
  }

  executed(attempt: number, result: ExecResult): this {
    return this.add({ type: 'executed', attempt, command: this.command, result });
  }

  decided(attempt: number, retry: boolean, reason: string): this {
    return this.add({ type: 'retry-decided', attempt, retry, reason });
  }

  reflected(reflection: Reflection = REFLECTION): this {
    this.model(null, 'reflect', JSON.stringify(reflection), 2400, 180);
    return this.add({ type: 'reflected', reflection });
  }

  finished(outcome: LoopOutcome, reason: string, diff = '', durationMs = 95_400): this {
    const changedFiles = diff === '' ? [] : ['stats.py'];
    const attempts = this.events.filter((event) => event.type === 'attempt-started').length;
    return this.add({
      type: 'finished',
      outcome,
      reason,
      attempts,
      diff,
      changedFiles,
      total: this.total(),
      durationMs,
    });
  }

  view(overrides: Partial<JobContext> = {}): JobView {
    return jobView(context(overrides), this.events);
  }

  private total(): Spend {
    return { usage: { ...this.usage }, costUsd: this.costUsd };
  }

  private add(event: LoopEvent): this {
    this.events.push(event);
    return this;
  }
}

const READ_STATS = JSON.stringify({ path: 'stats.py' });
const STATS_SOURCE = [
  'import csv',
  'import sys',
  '',
  '',
  'with open(sys.argv[1]) as handle:',
  '    values = [float(row[1]) for row in csv.reader(handle)]',
  '',
  'print(f"mean: {statistics.mean(values):.2f}")',
  'print(f"median: {statistics.median(values):.2f}")',
].join('\n');

/** Reproduced, then attempt 1 (tool calls, a wrong import, fails, retry) — stops where `until` says. */
export function firstAttempt(list = new EventList()): EventList {
  return list
    .started(['pip install -r requirements.txt'])
    .setup('pip install -r requirements.txt', exec(0, 'Requirement already satisfied: pip\n', 3100))
    .reproduced('failing', [exec(1, NAME_ERROR, 412)])
    .attempt(1)
    .model(1, 'generate', null, 1900, 40, [{ id: 'call_1', name: 'read_file', arguments: READ_STATS }])
    .tool(1, 'read_file', READ_STATS, STATS_SOURCE)
    .model(1, 'generate', null, 2300, 30, [
      { id: 'call_2', name: 'search_text', arguments: JSON.stringify({ pattern: 'statistics' }) },
    ])
    .tool(
      1,
      'search_text',
      JSON.stringify({ pattern: 'statistics' }),
      'stats.py:8: print(f"mean: ...")\nstats.py:9: print(...)',
    )
    .model(1, 'generate', '{"analysis":"mean comes from math","edits":[…]}', 2600, 220)
    .proposal(
      1,
      '`statistics` is never imported. `mean` is available from `math`, so import it from there.',
      [{ path: 'stats.py', search: 'import csv\n', replace: 'import csv\nfrom math import mean\n' }],
    )
    .applied(1, FIRST_DIFF)
    .executed(1, exec(1, IMPORT_ERROR, 380))
    .model(1, 'retry-decision', '{"retry":true,"reason":"…"}', 1500, 60)
    .decided(1, true, '`math` has no `mean`; importing the `statistics` module itself should work.');
}

/** A whole fixed run: two attempts, the second passes. */
export function fixedRun(): EventList {
  return firstAttempt()
    .attempt(2)
    .model(2, 'generate', '{"analysis":"import statistics","edits":[…]}', 3100, 180)
    .proposal(2, 'Import the `statistics` module instead of the nonexistent `math.mean`.', [
      { path: 'stats.py', search: 'from math import mean\n', replace: 'import statistics\n' },
      { path: 'stats.py', search: '{mean(values)', replace: '{statistics.mean(values)' },
    ])
    .applied(2, SECOND_DIFF)
    .executed(2, exec(0, SUCCESS_OUTPUT, 395))
    .reflected()
    .finished('fixed', 'the command passed on attempt 2', FINAL_DIFF);
}

/** Attempt 2 of a fixed run, stopped while its command runs. */
export function midRun(): EventList {
  return firstAttempt()
    .attempt(2)
    .model(2, 'generate', '{"analysis":"import statistics","edits":[…]}', 3100, 180)
    .proposal(2, 'Import the `statistics` module instead of the nonexistent `math.mean`.', [
      { path: 'stats.py', search: 'from math import mean\n', replace: 'import statistics\n' },
    ])
    .applied(2, SECOND_DIFF);
}

export const SLOW_OUTPUT = [
  'Reading data.csv',
  ...Array.from({ length: 30 }, (_unused, index) => `retrying row ${index + 1}: waiting for lock`),
  '',
].join('\n');

/** Three attempts: one wrong import, one whose edits do not apply, one that runs out of time. */
export function notFixedRun(): EventList {
  return firstAttempt()
    .attempt(2)
    .model(2, 'generate', '{"analysis":"…","edits":[…]}', 3300, 240)
    .proposal(2, 'Replace the `math` import with `statistics` and use it for the median too.', [
      { path: 'stats.py', search: 'from math import means\n', replace: 'import statistics\n' },
      { path: 'lib/report.py', search: '', replace: 'def report(values):\n    return sum(values)\n' },
    ])
    .rejected(2, [
      'stats.py: the search text was not found; the closest line is 2: "from math import mean"',
      'lib/report.py: creating files outside the listed paths is not allowed',
    ])
    .attempt(3)
    .model(3, 'generate', '{"analysis":"…","edits":[…]}', 3600, 260)
    .proposal(3, 'Wait for the lock on data.csv before reading it, then import `statistics`.', [
      { path: 'stats.py', search: 'import csv\n', replace: 'import csv\nimport statistics\nimport time\n' },
    ])
    .applied(3, FINAL_DIFF)
    .executed(3, timedOut(SLOW_OUTPUT, 120))
    .reflected({
      summary: 'The script still fails: after fixing the import it waits forever for a lock on data.csv.',
      rootCause:
        'A missing `import statistics`, and a second problem: `data.csv` is locked by another process.',
      changes:
        'Tried `math.mean` (does not exist), then `import statistics`, which fixed the NameError but exposed the lock wait.',
      confidence: 'low',
      risks: ['The lock may come from the test harness rather than the script.', 'Nothing was pushed.'],
    })
    .finished('not-fixed', 'still failing after 3 attempts', FINAL_DIFF, 412_000);
}

export function declinedRun(): EventList {
  const list = firstAttempt(new EventList(COMMAND, 5));
  list.events.splice(-2);
  return list
    .model(1, 'retry-decision', '{"retry":false,"reason":"…"}', 1500, 70)
    .decided(1, false, 'The script downloads data.csv from an internal host, and the sandbox has no network.')
    .reflected({
      summary: 'The failure needs network access the sandbox does not have.',
      rootCause:
        '`stats.py` reads a file that a setup step downloads from `files.internal`, unreachable here.',
      changes: 'One attempt changed the import; the run still failed before reaching the statistics.',
      confidence: 'medium',
      risks: [],
    })
    .finished(
      'declined',
      'The script downloads data.csv from an internal host, and the sandbox has no network.',
    );
}

export function flakyRun(): EventList {
  const failing = exec(1, 'Reading data.csv\nAssertionError: expected 4 rows, got 3\n', 530);
  return new EventList()
    .started()
    .reproduced('flaky', [exec(0, SUCCESS_OUTPUT, 410), failing])
    .reflected({
      summary: 'The command fails intermittently: the row count depends on a race with the writer.',
      rootCause: 'data.csv is sometimes read while another process is still writing it.',
      changes: 'No code was changed.',
      confidence: 'medium',
      risks: ['Reading a half-written file can also produce wrong averages silently.'],
    })
    .finished(
      'flaky',
      `\`${COMMAND}\` passed, then failed: the failure is intermittent (flaky); no code was changed`,
      '',
      8_200,
    );
}

export function cannotReproduceRun(): EventList {
  return new EventList()
    .started()
    .reproduced('passing', [
      exec(0, SUCCESS_OUTPUT, 400),
      exec(0, SUCCESS_OUTPUT, 390),
      exec(0, SUCCESS_OUTPUT, 405),
    ])
    .reflected({
      summary: 'The command passes in the sandbox; the failure depends on something outside the repository.',
      rootCause: 'Unknown: the same command passed three times here.',
      changes: 'No code was changed.',
      confidence: 'low',
      risks: [],
    })
    .finished(
      'cannot-reproduce',
      `\`${COMMAND}\` passed 3 times out of 3: the failure could not be reproduced`,
      '',
      6_100,
    );
}

export function budgetRun(): EventList {
  return firstAttempt()
    .reflected()
    .finished('budget-exhausted', 'token budget used up (10,000 tokens)', FIRST_DIFF, 60_000);
}

export function cancelledRun(): EventList {
  const list = firstAttempt();
  list.events.splice(list.events.findIndex((event) => event.type === 'proposal'));
  return list.finished('cancelled', 'the job was cancelled', '', 21_000);
}

export function errorRun(): EventList {
  return new EventList()
    .started(['pip install -r requirements.txt'])
    .setup(
      'pip install -r requirements.txt',
      exec(1, 'ERROR: Could not find a version that satisfies the requirement numpy==9.9\n', 4200),
    )
    .reflected({
      summary: 'The setup step fails: requirements.txt pins a numpy version that does not exist.',
      rootCause: '`numpy==9.9` is not a released version.',
      changes: 'Nothing was changed; the failure happens before the script runs.',
      confidence: 'high',
      risks: [],
    })
    .finished(
      'error',
      'the setup command `pip install -r requirements.txt` failed with exit code 1',
      '',
      9_000,
    );
}
