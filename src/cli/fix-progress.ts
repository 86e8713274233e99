import { cutOutput } from '../ci-logs/index.js';
import type { LoopEvent, LoopOutcome, Spend } from '../loop/events.js';
import type { Reflection } from '../loop/schemas.js';
import { environmentLines } from '../report/index.js';
import type { ExecResult } from '../sandbox/sandbox.js';
import type { OutputStream } from './output-stream.js';
import { clip, duration, indent, paint, plain, plural, Spinner, type Style } from './terminal.js';

export interface ProgressOptions {
  /** Whether the output is a terminal: only then a spinner and cursor codes. */
  isTTY: boolean;
  /** Colors, only honoured on a terminal; the caller turns them off for NO_COLOR. */
  color?: boolean;
  /** Whether prices are known; without them every cost is 0 and would only mislead. */
  showCost?: boolean;
  spinnerIntervalMs?: number;
}

const EXCERPT_LINES = 20;
const LINE_CHARS = 240;

/**
 * Renders the loop's events as they happen, one line per step, for `selfdebug fix`.
 * On a terminal it adds colors and a spinner for the waits (model calls, command
 * runs); anywhere else it writes plain text a log file or a test can read.
 */
export class FixProgress {
  private readonly color: boolean;
  private readonly showCost: boolean;
  private readonly spinner: Spinner | null;
  private command = '';
  private setupCommands: string[] = [];
  private setupsRan = 0;

  constructor(
    private readonly out: OutputStream,
    options: ProgressOptions,
  ) {
    this.color = options.isTTY && (options.color ?? true);
    this.showCost = options.showCost ?? false;
    this.spinner = options.isTTY ? new Spinner(out, options.spinnerIntervalMs ?? 100, this.color) : null;
  }

  /** The EventSink to hand to runLoop. */
  readonly sink = (event: LoopEvent): void => this.render(event);

  render(event: LoopEvent): void {
    const lines = this.linesFor(event);
    if (lines.length > 0) this.print(lines);
    const wait = this.waitAfter(event);
    if (wait === null) this.spinner?.stop();
    else if (wait !== 'same') this.spinner?.start(wait);
  }

  /** A line of the command's own (files written, patch saved), printed without upsetting the spinner. */
  note(text: string): void {
    this.print([plain(text)]);
  }

  /** Removes the spinner for good; call before exiting or writing to another stream. */
  stop(): void {
    this.spinner?.stop();
  }

  private print(lines: string[]): void {
    this.spinner?.clear();
    this.out.write(`${lines.join('\n')}\n`);
  }

  private linesFor(event: LoopEvent): string[] {
    switch (event.type) {
      case 'started':
        return this.started(event);
      case 'environment-prepared':
        return environmentLines(event.preparation).map((line) => `environment: ${plain(line)}`);
      case 'setup-ran':
        return this.setupRan(event);
      case 'reproduced':
        return this.reproduction(event.status, event.runs);
      case 'attempt-started':
        return ['', this.paint('bold', `attempt ${event.attempt} of ${event.maxAttempts}`)];
      case 'model-responded':
        return [];
      case 'tool-called':
        return [this.toolCall(event)];
      case 'proposal':
        return indent(`analysis: ${plain(event.proposal.analysis)}`, '  ', '    ');
      case 'edits-applied':
        return [`  applied edits to ${plain(event.paths.join(', '))}:`, ...this.diff(event.diff)];
      case 'edits-rejected':
        return this.rejectedEdits(event.problems, event.guardFindings !== undefined);
      case 'answer-rejected':
        return this.rejectedAnswer(event);
      case 'executed':
        return [`  run: ${this.status(event.result)}`, ...this.excerpt(event.result)];
      case 'retry-decided':
        return indent(`retry: ${event.retry ? 'yes' : 'no'}, ${plain(event.reason)}`, '  ', '    ');
      case 'reflected':
        return reflectionLines(event.reflection);
      case 'finished':
        return [
          '',
          this.finalLine(event.outcome, event.reason, event.attempts, event.total, event.durationMs),
        ];
    }
  }

  private setupRan(event: Extract<LoopEvent, { type: 'setup-ran' }>): string[] {
    this.setupsRan += 1;
    return [`setup \`${plain(event.command)}\`: ${this.status(event.result)}`, ...this.excerpt(event.result)];
  }

  private toolCall(event: Extract<LoopEvent, { type: 'tool-called' }>): string {
    const failure = event.ok ? '' : this.paint('yellow', ` → ${firstLine(event.result)}`);
    return `  tool ${plain(event.name)} ${shortArguments(event.arguments)}${failure}`;
  }

  private rejectedEdits(problems: readonly string[], refusedByGuard: boolean): string[] {
    const what = refusedByGuard ? 'edits refused by the test guard' : 'edits rejected';
    return [
      this.paint('yellow', `  ${what}, nothing was run:`),
      ...problems.flatMap((problem) => indent(plain(problem), '    - ', '      ')),
    ];
  }

  private started(event: Extract<LoopEvent, { type: 'started' }>): string[] {
    this.command = event.task.command;
    this.setupCommands = event.task.setupCommands ?? [];
    return [
      this.paint(
        'bold',
        `Fixing \`${plain(event.task.command)}\` with ${plain(event.model)}: up to ` +
          `${plural(event.limits.maxAttempts, 'attempt')}, ${event.limits.commandTimeoutSeconds} s per run`,
      ),
    ];
  }

  private rejectedAnswer(event: Extract<LoopEvent, { type: 'answer-rejected' }>): string[] {
    // A rejected reflection comes after the attempts, so it is not indented under the last one.
    const pad = event.attempt === null ? '' : '  ';
    return [
      this.paint('yellow', `${pad}${event.purpose} answer rejected, ${plain(event.consequence)}:`),
      ...indent(plain(event.problem), `${pad}  `, `${pad}  `),
      ...indent(plain(event.advice), `${pad}  `, `${pad}  `),
    ];
  }

  /** What the loop waits for after this event: a spinner label, null for nothing, 'same' to keep it. */
  private waitAfter(event: LoopEvent): string | null | 'same' {
    const running = (command: string) => `running \`${plain(command)}\``;
    switch (event.type) {
      case 'started':
      case 'setup-ran': {
        const next = this.setupCommands[this.setupsRan];
        if (event.type === 'setup-ran' && event.result.exitCode !== 0) return 'the model is reflecting';
        return next === undefined ? running(this.command) : running(next);
      }
      case 'reproduced':
        return event.status === 'failing' ? null : 'the model is reflecting';
      case 'executed':
        return event.result.exitCode === 0 ? 'the model is reflecting' : 'the model is thinking';
      case 'attempt-started':
      case 'tool-called':
      case 'edits-rejected':
        return 'the model is thinking';
      case 'answer-rejected':
        return event.purpose === 'generate' ? 'the model is thinking' : 'same';
      case 'model-responded':
        return 'same';
      case 'edits-applied':
        return running(this.command);
      case 'retry-decided':
        return event.retry ? null : 'the model is reflecting';
      default:
        return null;
    }
  }

  private reproduction(status: 'failing' | 'flaky' | 'passing', runs: ExecResult[]): string[] {
    const failed = runs.find((run) => run.exitCode !== 0);
    if (status === 'failing' && failed) {
      return [`reproduce: ${this.paint('red', 'failing')}: ${this.status(failed)}`, ...this.excerpt(failed)];
    }
    if (status === 'flaky' && failed) {
      const passes = runs.filter((run) => run.exitCode === 0).length;
      return [
        `reproduce: ${this.paint('yellow', 'flaky')}: passed ${passes} of ${plural(runs.length, 'run')}, ` +
          `then ${this.status(failed)}`,
        ...this.excerpt(failed),
      ];
    }
    return [
      `reproduce: ${this.paint('green', 'passing')}: exit 0 in ${plural(runs.length, 'run')}, nothing to fix`,
    ];
  }

  private status(result: ExecResult): string {
    const code = `exit ${result.exitCode}${result.reason ? ` (${plain(result.reason)})` : ''}`;
    return `${this.paint(result.exitCode === 0 ? 'green' : 'red', code)} after ${duration(result.durationMs)}`;
  }

  /**
   * What a run's output says about its failure: the failing tests and errors, whole, before the
   * last lines, and known noise (coverage tables, passing tests, lint warnings) last, as the
   * prompt's cut ranks them (src/ci-logs/output-cut.ts). Gaps say how many lines went.
   */
  private excerpt(result: ExecResult): string[] {
    const output = plain(result.output).replace(/\n+$/, '');
    if (output === '') return [];
    const cut = cutOutput(output, { maxCharacters: EXCERPT_LINES * LINE_CHARS, maxLines: EXCERPT_LINES });
    const bar = this.paint('dim', '    │ ');
    const gap = (count: number, first: boolean) =>
      `${bar}${this.paint('dim', `… ${plural(count, first ? 'earlier line' : 'line')}`)}`;
    const shown: string[] = [];
    let next = 1;
    for (const line of cut.lines) {
      if (line.n > next) shown.push(gap(line.n - next, next === 1));
      shown.push(`${bar}${clip(line.text, LINE_CHARS)}`);
      next = line.n + 1;
    }
    if (cut.totalLines >= next) shown.push(gap(cut.totalLines - next + 1, false));
    if (result.truncated) shown.push(`${bar}${this.paint('dim', '(output was cut at the size limit)')}`);
    return shown;
  }

  private diff(diff: string): string[] {
    return plain(diff)
      .replace(/\n$/, '')
      .split('\n')
      .map((line) => {
        if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ')) {
          return `    ${this.paint('bold', line)}`;
        }
        if (line.startsWith('+')) return `    ${this.paint('green', line)}`;
        if (line.startsWith('-')) return `    ${this.paint('red', line)}`;
        if (line.startsWith('@@')) return `    ${this.paint('cyan', line)}`;
        return `    ${line}`;
      });
  }

  private finalLine(
    outcome: LoopOutcome,
    reason: string,
    attempts: number,
    total: Spend,
    ms: number,
  ): string {
    const facts = [plural(attempts, 'attempt'), plural(total.usage.totalTokens, 'token')];
    if (this.showCost) facts.push(cost(total.costUsd));
    facts.push(duration(ms));
    const mark = outcome === 'fixed' ? this.paint('green', '✔ fixed') : this.paint('red', `✖ ${outcome}`);
    return `${this.paint('bold', mark)}: ${plain(reason)} (${facts.join(', ')})`;
  }

  private paint(style: Style, text: string): string {
    return paint(style, text, this.color);
  }
}

function firstLine(text: string): string {
  return clip(plain(text).split('\n')[0] ?? '', 120);
}

/** A tool call's arguments as `key=value`, short enough for one line. */
function shortArguments(text: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return clip(plain(text), 80);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return clip(plain(text), 80);
  const pairs = Object.entries(parsed).map(
    ([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
  );
  return clip(plain(pairs.join(' ')), 80);
}

function cost(usd: number): string {
  if (usd > 0 && usd < 0.0001) return '<$0.0001';
  return `$${usd.toFixed(4)}`;
}

function reflectionLines(reflection: Reflection): string[] {
  const { summary, rootCause, confidence, risks } = reflection;
  return [
    '',
    ...indent(`reflection: ${plain(summary)}`, '', '  '),
    ...indent(`root cause: ${plain(rootCause)}`, '  ', '    '),
    `  confidence: ${confidence}`,
    risks.length === 0 ? '  risks: none' : '  risks:',
    ...risks.flatMap((risk) => indent(plain(risk), '    - ', '      ')),
  ];
}
