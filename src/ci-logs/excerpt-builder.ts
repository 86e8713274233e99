import { CandidateStore } from './candidate-store.js';
import type { CiMarker } from './ci-format.js';
import { ciMarker } from './ci-markers.js';
import { CloseReading } from './close-reading.js';
import { FailureListing } from './failure-listing.js';
import { GoTraceback } from './go-traceback.js';
import { JobSteps } from './job-steps.js';
import { BARE_VERDICT, classify, isListingHeader, type LineClass } from './line-kinds.js';
import { shapeOf } from './line-shape.js';
import { showLine, stripLine, stripRange } from './line-text.js';
import type { LineHandler } from './log-lines.js';
import { type LogExcerpt, selectLines } from './select-lines.js';
import { StepEnds } from './step-ends.js';
import { TailStart } from './tail-start.js';

// Called as `charCodeAt.call(text, i)`: see "String methods" in docs/ci-logs.md for why.
const { charCodeAt, trim } = String.prototype;

/**
 * Reads a log line by line (see LineSplitter) and keeps what may explain the
 * failure: scored candidate lines in a bounded store, a few recent lines for
 * context, and the steps with how they ended. Memory does not grow with the
 * log: the store prunes itself, and only the first and last lines are kept whole.
 */
/** How far back the builder reads recent lines (context, a verdict's test name, a tool's last words). */
const RECENT_LINES = 8;
/** Lines before and after a line of evidence kept as its context, should the budget allow. */
const CONTEXT_BEFORE = 6;
const CONTEXT_AFTER = 8;
/** Lines after a failing test's verdict that count as its details (pytest quotes long tracebacks). */
const ATTACHED_LINES = 200;
/** Lighter lines could never reach an excerpt (see MIN_SCORE), so they are not stored. */
const MIN_STORED_WEIGHT = 8;

export class ExcerptBuilder implements LineHandler {
  private readonly store: CandidateStore;
  private readonly listing = new FailureListing();
  private readonly job = new JobSteps((closed) => this.stepStarting(closed));
  /** The job's steps, the same array as `job.steps`. */
  private readonly steps = this.job.steps;
  private readonly ends: StepEnds;
  private readonly tail: TailStart;
  private contextUntil = 0;
  private head: { raw: string; number: number }[] | null = [];
  private readonly reading = new CloseReading();
  private attachedUntil = 0;
  private readonly goroutines = new GoTraceback();
  /** The last closed step that failed while running, and the last that ran at all, or -1 (see lastFailedRun). */
  private closedFailedRun = -1;
  private closedRun = -1;

  constructor(
    private readonly maxLines: number,
    private readonly maxCharacters: number,
  ) {
    this.store = new CandidateStore(Math.max(4 * maxLines, 600));
    this.ends = new StepEnds(maxLines, RECENT_LINES);
    this.tail = new TailStart(maxLines);
  }

  line(text: string, start: number, end: number, number: number, flagged: boolean, bytes: Uint8Array): void {
    if (this.head) {
      if (this.head.length < this.maxLines) this.head.push({ raw: text.slice(start, end), number });
      else this.head = null;
    }
    const job = this.job;
    // Another goroutine's stack, after a Go panic's: noise, neither evidence nor context.
    const tracing = this.goroutines.active;
    if (tracing && this.goroutines.read(stripRange(text, bytes, start, end), number) === 'other') {
      this.ends.push(text, start, end, number);
      return;
    }
    if (
      flagged ||
      this.reading.wants(number) ||
      job.readingScript ||
      this.listing.open ||
      job.titleNext ||
      tracing
    ) {
      this.inspect(text, bytes, start, end, number, flagged);
    } else if (number <= this.contextUntil && this.ends.wantsContext(this.steps)) {
      this.ends.addContextLine(this.steps, text.slice(start, end), number);
    }
    this.ends.push(text, start, end, number);
  }

  continues(number: number): void {
    this.tail.continues(number);
  }

  finish(totalLines: number): LogExcerpt {
    const whole = this.head?.map(({ raw, number }) => ({ number, text: showLine(stripLine(raw)) })) ?? null;
    const panics = this.goroutines.panics();
    const stepEnds = whole ? [] : this.ends.failedStepEnds(this.steps, this.job.system);
    for (const { lines } of stepEnds)
      for (const line of lines) if (this.goroutines.isOther(line.number)) line.noise = true;
    return selectLines({
      store: this.store,
      steps: this.steps,
      whole,
      stepEnds,
      contexts: whole ? new Map() : this.ends.shownContexts(this.job.system),
      system: this.job.system,
      totalLines,
      tailFirst: this.tail.first(totalLines),
      maxLines: this.maxLines,
      maxCharacters: this.maxCharacters,
      panics,
    });
  }

  /** Context before a line of evidence from the ring, and after it as the lines come. */
  private surround(number: number): void {
    if (!this.ends.wantsContext(this.steps)) return;
    // Context stays inside the step: the lines around it belong to other commands.
    const first = this.job.current.number;
    for (let back = 1; back <= CONTEXT_BEFORE && number - back > first; back++) {
      const raw = this.ends.recent(number - back);
      if (raw !== null && !this.goroutines.isOther(number - back))
        this.ends.addContextLine(this.steps, raw, number - back);
    }
    this.contextUntil = Math.max(this.contextUntil, number + CONTEXT_AFTER);
  }

  /** A line read closely; its raw text is copied out only when it is kept as it came. */
  private inspect(
    chunk: string,
    bytes: Uint8Array,
    start: number,
    end: number,
    number: number,
    flagged: boolean,
  ): void {
    const text = stripRange(chunk, bytes, start, end);
    const marker = this.job.markerOf(chunk, start, end, text);
    if (marker !== null) this.onMarker(marker, text, number);
    else if (!this.job.readStructure(text)) this.weigh(chunk, start, end, text, number, flagged);
  }

  /** An output line: classified, weighed, and stored with its context if it may explain the failure. */
  private weigh(
    chunk: string,
    start: number,
    end: number,
    text: string,
    number: number,
    flagged: boolean,
  ): void {
    const step = this.steps.length - 1;
    const shape = shapeOf(text);
    let found: LineClass = classify(shape, flagged);
    if (found.kind === 'error') this.goroutines.opens(text, number, step);
    if (isListingHeader(shape.core)) {
      this.listing.start(shape);
      found = { kind: 'summary', weight: Math.max(found.weight, 60) };
    } else if (this.listing.open) {
      found = this.listing.read(shape, found);
    }
    const weight = this.reading.weigh(shape, found, number);
    if (found === BARE_VERDICT) {
      // A bare verdict (`FAILED`, `Caused an ERROR`) names no test: the line before it does.
      this.addFromRing(number - 1, 88, step, true);
    }
    if (found === BARE_VERDICT || (found.kind === 'test' && found.weight >= 85)) {
      this.attachedUntil = number + ATTACHED_LINES;
    }
    if (weight < MIN_STORED_WEIGHT || !this.store.admits(weight)) {
      if (number <= this.contextUntil) this.ends.addContextLine(this.steps, chunk.slice(start, end), number);
      return;
    }
    const attached = number <= this.attachedUntil || this.listing.open;
    this.store.add({ number, text: showLine(text), weight, kind: found.kind, step, attached });
    if (weight >= 50 && found.kind !== 'plain') {
      this.reading.evidenceKept();
      this.addContext(number, weight, found, step, shape.core);
      this.surround(number);
    }
  }

  private addContext(number: number, weight: number, found: LineClass, step: number, core: string): void {
    const before = found.kind === 'test' || found.kind === 'error' ? 2 : 1;
    const attached = found.kind === 'test' || number <= this.attachedUntil;
    for (let back = 1; back <= before; back++) {
      this.addFromRing(number - back, Math.min(30, weight * 0.3) - back, step, attached);
    }
    // A `___ test ___` banner opens the runner's quote of the test's source: no context worth following.
    const banner = charCodeAt.call(core, 0) === 95;
    // A verdict's message follows it after a blank line or two (jest: `expect(…)`, `Expected:`, `Received:`).
    const after = core === '* What went wrong:' ? 4 : banner ? 0 : found.kind === 'test' ? 6 : 2;
    const afterWeight = core === '* What went wrong:' ? 70 : Math.min(35, weight * 0.4);
    this.reading.follow(number, after, afterWeight);
  }

  private addFromRing(number: number, weight: number, step: number, attached: boolean): void {
    const raw = this.ends.recent(number);
    if (raw === null || !this.store.admits(weight) || this.goroutines.isOther(number)) return;
    const text = stripLine(raw);
    if (trim.call(text).length === 0 || ciMarker(text, this.job.system) !== null) return;
    this.store.add({ number, text: showLine(text), weight, kind: 'plain', step, attached });
  }

  /**
   * A job's verdict may follow the system's own account of why (Jenkins: `Timeout has been
   * exceeded`, then `Finished: ABORTED`): failure lines just before it count for the step blamed.
   */
  private lastWords(number: number, step: number): void {
    for (let back = 1; back <= 2; back++) {
      const raw = this.ends.recent(number - back);
      if (raw === null) return;
      const text = stripLine(raw);
      if (ciMarker(text, this.job.system) !== null) continue;
      const found = classify(shapeOf(text));
      if (found.weight < 50) continue;
      this.store.add({
        number: number - back,
        text: showLine(text),
        weight: 70,
        kind: 'error',
        step,
        attached: true,
      });
      this.store.blame(number - back, step, 70);
    }
  }

  /** Errors and warnings are evidence; every other marker is the job's structure. */
  private onMarker(marker: CiMarker, text: string, number: number): void {
    if (marker.kind === 'error') this.onError(marker, text, number);
    else if (marker.kind === 'warning') {
      const step = this.steps.length - 1;
      this.store.add({ number, text: showLine(text), weight: 15, kind: 'warning', step, attached: false });
    } else if (this.job.onMarker(marker, text, number)) this.listing.close();
  }

  /**
   * A step reports its failure (`##[error]`, `The command … exited with 1.`, `ERROR: script returned
   * exit code 1`); a job's verdict (`ERROR: Job failed`, `Done. Your build exited with 1.`,
   * `Finished: FAILURE`) comes after the runner's cleanup, and belongs to the last step that ran.
   */
  private onError(marker: Extract<CiMarker, { kind: 'error' }>, text: string, number: number): void {
    let step = this.steps.length - 1;
    if (marker.job) {
      const failed = this.lastFailedRun();
      if (failed !== -1 && (marker.exitCode === null || this.steps[failed]!.exitCode !== null)) {
        // The step that failed has said so; the verdict only repeats it.
        this.store.add({
          number,
          text: showLine(text),
          weight: 60,
          kind: 'exit',
          step: failed,
          attached: true,
        });
        return;
      }
      step = failed !== -1 ? failed : this.lastRunStep();
    }
    if (marker.job) this.lastWords(number, step);
    const record = this.steps[step]!;
    if (!record.failed && step !== this.steps.length - 1) this.store.reopen(step);
    record.failed = true;
    this.countFailedRun(step);
    this.listing.close();
    if (marker.silent) return;
    if (marker.exitCode !== null) {
      if (record.exitCode === null || !marker.job) record.exitCode = marker.exitCode;
      this.store.add({ number, text: showLine(text), weight: 100, kind: 'exit', step, attached: true });
      if (marker.job) return;
      // The lines just before the exit are often the tool's last words, whatever the tool.
      for (let back = 1; back <= 3; back++) this.addFromRing(number - back, 36 - 4 * back, step, true);
    } else {
      this.store.add({ number, text: showLine(text), weight: 95, kind: 'annotation', step, attached: true });
      if (!marker.job) this.addFromRing(number - 1, 25, step, true);
    }
    this.surround(number);
  }

  /**
   * The last step that failed while running, or -1: the open step, or the last such closed one.
   * Only the open step's phase ever changes, and a failed step stays failed, so the closed ones are
   * counted as they close or fail (a job's verdict on every line of a long log would otherwise walk
   * all its steps each time).
   */
  private lastFailedRun(): number {
    const open = this.steps.length - 1;
    const current = this.steps[open]!;
    return current.failed && current.phase === 'run' ? open : this.closedFailedRun;
  }

  /** The last step that ran commands (the open step, or the last such closed one), or the first. */
  private lastRunStep(): number {
    const open = this.steps.length - 1;
    return this.steps[open]!.phase === 'run' ? open : Math.max(0, this.closedRun);
  }

  /** Step `step` failed, or is closing: counted once closed, if it failed while running. */
  private countFailedRun(step: number, closing = false): void {
    const record = this.steps[step]!;
    if ((closing || step < this.steps.length - 1) && record.failed && record.phase === 'run')
      this.closedFailedRun = Math.max(this.closedFailedRun, step);
  }

  /** A step begins: what was being followed in the last one does not carry over. */
  private stepStarting(closed: number | null): void {
    this.reading.reset();
    this.attachedUntil = 0;
    this.contextUntil = 0;
    if (closed === null) return;
    if (this.steps[closed]!.phase === 'run') this.closedRun = closed;
    this.countFailedRun(closed, true);
    this.store.closeStep(closed, this.steps[closed]!.failed);
    this.ends.stepEnded(this.steps, closed, this.job.system);
  }
}
