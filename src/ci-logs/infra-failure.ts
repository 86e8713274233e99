import type { CiSystem } from './ci-format.js';
import { ciMarker } from './ci-markers.js';
import { type InfraKind, runnerEvidence, toolEvidence } from './infra-evidence.js';
import { classify } from './line-kinds.js';
import { shapeOf } from './line-shape.js';
import { ownCopy, showLine, stripLine } from './line-text.js';
import type { LineHandler } from './log-lines.js';
import { type LogSource, readLog } from './log-source.js';

export type { InfraKind } from './infra-evidence.js';

/**
 * Whether a failed job failed for its infrastructure — a runner lost or
 * cancelled, a dependency that could not be fetched, a registry's rate
 * limit, a full disk — rather than for its code. Judged where the failure
 * is, never on a mention: the runner's own error lines, and the end of the
 * step that failed (or, when no step is marked failed, of the last step).
 * A step whose tests reported a failed test failed as tests do: a timeout in
 * a test's message is the code's business, as is a timeout in a step that
 * passed. Reads the log once, in bounded memory.
 */
export interface InfraFailure {
  kind: InfraKind;
  /** The line that shows it, as shown in reports. */
  evidence: string;
  /** Its line number in the log; null when it came from the job's annotations. */
  line: number | null;
  /** The step it failed in, as the log titles it. */
  step: string | null;
}

export interface InfraOptions {
  /** The job's failure annotations (where the service reports a runner that stopped answering). */
  annotations?: readonly string[];
}

/** Lines of a step's end read for a tool's evidence: the error a tool ends on sits above its summary. */
const TAIL_LINES = 30;
/** The runner's error lines kept: it writes its own verdicts last. */
const RUNNER_LINES = 20;

interface Line {
  n: number;
  text: string;
}

interface StepTail {
  title: string | null;
  run: boolean;
  failed: boolean;
  /** A test runner reported a failed test in this step. */
  testFailed: boolean;
  lines: Line[];
}

const newStep = (title: string | null, run: boolean): StepTail => ({
  title,
  run,
  failed: false,
  testFailed: false,
  lines: [],
});

export async function classifyInfraFailure(
  source: LogSource,
  options: InfraOptions = {},
): Promise<InfraFailure | null> {
  const reader = new InfraFailureReader();
  await readLog(source, reader);
  return reader.verdict(options.annotations ?? []);
}

/** The classifier as a reader of a pass over the log another reader makes too (excerptLog's `alsoRead`). */
export class InfraFailureReader implements LineHandler {
  private system: CiSystem = 'generic';
  private current = newStep(null, true);
  /** The last step that failed, and the last step that ran a command (when none is marked failed). */
  private lastFailed: StepTail | null = null;
  private lastRun: StepTail | null = null;
  private inHeader = false;
  private readonly runnerErrors: Line[] = [];

  line(text: string, start: number, end: number, number: number, flagged: boolean): void {
    const stripped = stripLine(text.slice(start, end));
    const found = ciMarker(stripped, this.system);
    if (found) {
      this.system = found.system;
      this.marker(found.marker, stripped, number);
      return;
    }
    if (this.inHeader) return;
    const step = this.current;
    push(step.lines, { n: number, text: stripped }, TAIL_LINES);
    if (flagged && !step.testFailed && classify(shapeOf(stripped)).kind === 'test') step.testFailed = true;
  }

  private marker(
    marker: NonNullable<ReturnType<typeof ciMarker>>['marker'],
    text: string,
    number: number,
  ): void {
    switch (marker.kind) {
      case 'step':
        this.endStep();
        this.current = newStep(marker.title, marker.phase === 'run');
        this.inHeader = marker.header === true;
        return;
      case 'endgroup':
        this.inHeader = false;
        return;
      case 'error':
        this.current.failed = true;
        push(this.runnerErrors, { n: number, text: errorMessage(text) }, RUNNER_LINES);
        push(this.current.lines, { n: number, text }, TAIL_LINES);
        return;
      case 'epilogue':
        this.endStep();
        this.current = newStep(null, false);
        return;
      default:
        return;
    }
  }

  private endStep(): void {
    const step = this.current;
    if (step.lines.length > 0)
      step.lines = step.lines.map((line) => ({ n: line.n, text: ownCopy(line.text) }));
    if (step.failed) this.lastFailed = step;
    if (step.run && step.lines.length > 0) this.lastRun = step;
  }

  /**
   * True once a step of the log is marked failed. A failed job whose log shows no failed step
   * (cut short, or missing) is where the job's annotations say what happened to its runner.
   */
  get sawFailedStep(): boolean {
    return this.lastFailed !== null || this.current.failed;
  }

  verdict(annotations: readonly string[] = []): InfraFailure | null {
    this.endStep();
    const runner = this.runnerVerdict(annotations);
    if (runner !== undefined) return runner;
    const step = this.lastFailed ?? this.lastRun;
    if (!step || step.testFailed) return null;
    for (let index = step.lines.length - 1; index >= 0; index--) {
      const line = step.lines[index]!;
      const kind = toolEvidence(line.text);
      if (kind) return { kind, evidence: showLine(line.text), line: line.n, step: step.title };
    }
    return null;
  }

  /** The runner's own verdict: a lost runner, a cancelled step, or a timeout (the code's: undefined means none). */
  private runnerVerdict(annotations: readonly string[]): InfraFailure | null | undefined {
    const step = (this.lastFailed ?? this.lastRun)?.title ?? null;
    const said = [
      ...annotations.map((text) => ({ n: null, text })),
      ...this.runnerErrors.map((line) => ({ n: line.n as number | null, text: line.text })),
    ].map((line) => ({ ...line, kind: runnerEvidence(line.text) }));
    for (const wanted of ['runner-lost', 'timed-out', 'cancelled'] as const) {
      const hit = said.find((line) => line.kind === wanted);
      if (!hit) continue;
      if (wanted === 'timed-out') return null;
      return { kind: wanted, evidence: showLine(hit.text), line: hit.n, step };
    }
    return undefined;
  }
}

/** `##[error]The operation was canceled.` → the message alone. */
function errorMessage(text: string): string {
  return text.replace(/^##\[error\]|^::error[^:]*::/, '');
}

function push<T>(lines: T[], line: T, limit: number): void {
  lines.push(line);
  if (lines.length > limit) lines.shift();
}
