import type { CiSystem } from './ci-format.js';
import { ciMarker } from './ci-markers.js';
import { LineRing, type RingSnapshot, snapshotLines } from './line-ring.js';
import { ownCopy, showLine, stripLine } from './line-text.js';
import { failingStepOf, type StepEnd, type StepRecord } from './select-lines.js';

// Called as `charCodeAt.call(text, i)`: see "String methods" in docs/ci-logs.md for why.
const { trim } = String.prototype;

/** The end of the failing step is kept in a ring of the budget's size, at most this. */
const MAX_TAIL_SIZE = 2000;
/** Context lines a step keeps, whatever the budget. */
const MIN_CONTEXT_LINES = 300;
/** How many failed steps keep the end of their output for the excerpt. */
const MAX_STEP_ENDS = 4;
/** Systems whose job verdict comes after the runner's cleanup (see ci-format.ts). */
const LATE_VERDICTS = new Set<CiSystem>(['gitlab', 'travis', 'jenkins', 'generic']);

/**
 * What fills the excerpt's budget once the evidence is in: the last lines of
 * the steps that failed (what a `tail` of each shows) and the context lines
 * around evidence, by step. Both are cleaned only at the end: the step ends
 * are held by reference into the chunks they came from (a step's end is a run
 * of neighbouring lines, in a chunk or two), the context lines, spread over a
 * step, as copies. Only the steps that failed, or may yet be blamed by a job's
 * late verdict, keep theirs.
 */
export class StepEnds {
  /** The recent lines: the builder's ring for context, and the end of each step (the newest `tailSize`). */
  private readonly lines: LineRing;
  private readonly tailSize: number;
  /** The last lines of steps that ended, by reference: failed ones, and the last run step. */
  private readonly ends = new Map<number, RingSnapshot>();
  /**
   * Context lines by step, raw: the open step's, and those of the steps whose ends are kept,
   * at most the budget's size per step.
   */
  private readonly contexts = new Map<number, Map<number, string>>();
  private readonly maxContextLines: number;

  /** `recentLines`: how far back `recent` must reach, whatever the budget. */
  constructor(maxLines: number, recentLines: number) {
    this.tailSize = Math.min(MAX_TAIL_SIZE, maxLines);
    // One ring for both uses: every line of a large log passes here, and one push costs less than two.
    this.lines = new LineRing(Math.max(recentLines, this.tailSize));
    // Never fewer than a few hundred: under a small budget, a late failure's block is still known whole.
    this.maxContextLines = Math.min(MAX_TAIL_SIZE, Math.max(maxLines, MIN_CONTEXT_LINES));
  }

  push(text: string, start: number, end: number, number: number): void {
    this.lines.push(text, start, end, number);
  }

  /** A recent line by its number, copied out, or null once it has left the ring. */
  recent(number: number): string | null {
    return this.lines.find(number);
  }

  /** Whether the open step may still need context: a run step (or one that failed) with room left. */
  wantsContext(steps: StepRecord[]): boolean {
    const current = steps[steps.length - 1]!;
    if (current.phase !== 'run' && !current.failed) return false;
    return (this.contexts.get(steps.length - 1)?.size ?? 0) < this.maxContextLines;
  }

  /**
   * A line near evidence, worth showing only if the budget has room once the evidence is in.
   * Kept apart from the candidates, by step: only the context of steps that failed (or may yet be
   * blamed) is ever shown, so a passing step's is dropped when it ends.
   */
  addContextLine(steps: StepRecord[], raw: string, number: number): void {
    if (!this.wantsContext(steps)) return;
    const step = steps.length - 1;
    let lines = this.contexts.get(step);
    if (lines === undefined) {
      lines = new Map();
      this.contexts.set(step, lines);
    }
    // Raw, cleaned only if the excerpt needs it (see shownContexts), but copied out of its chunk.
    lines.set(number, ownCopy(raw));
  }

  /**
   * A step ended: keep its end by reference if it failed, or if it is the last run step where a
   * job's verdict after the cleanup may yet blame it; context is kept only for the steps whose ends are.
   */
  stepEnded(steps: StepRecord[], index: number, system: CiSystem): void {
    const closing = steps[index]!;
    if (closing.failed || (closing.phase === 'run' && LATE_VERDICTS.has(system))) {
      for (const [kept] of this.ends) {
        if (!steps[kept]!.failed) {
          this.ends.delete(kept);
          steps[kept]!.script = [];
        }
      }
      if (this.ends.size >= MAX_STEP_ENDS) this.ends.delete(this.ends.keys().next().value!);
      this.ends.set(index, this.lines.snapshot(closing.number, this.tailSize));
    }
    for (const step of this.contexts.keys()) if (!this.ends.has(step)) this.contexts.delete(step);
  }

  /**
   * The last lines of the step that failed, then of up to three other steps that failed, each
   * oldest first, without blank lines and the runner's markers: what a `tail` of each step shows.
   * With no failing step, the end of the log before the runner's epilogue.
   */
  failedStepEnds(steps: StepRecord[], system: CiSystem): StepEnd[] {
    let failing = failingStepOf(steps);
    if (failing === null) {
      failing = steps.length - 1;
      while (failing > 0 && steps[failing]!.phase === 'post') failing--;
    }
    const indexes = [failing];
    for (let index = steps.length - 1; index >= 0 && indexes.length < MAX_STEP_ENDS; index--) {
      const step = steps[index]!;
      if (index !== failing && step.failed && step.phase === 'run') indexes.push(index);
    }
    return indexes.map((index) => ({ step: index, lines: this.stepEnd(steps, index, system) }));
  }

  /** The context lines kept, cleaned for showing, without blank lines and the systems' markers. */
  shownContexts(system: CiSystem): Map<number, Map<number, string>> {
    const shown = new Map<number, Map<number, string>>();
    for (const [step, lines] of this.contexts) {
      const texts = new Map<number, string>();
      for (const [number, raw] of lines) {
        const text = stripLine(raw);
        if (trim.call(text).length === 0 || ciMarker(text, system) !== null) continue;
        texts.set(number, showLine(text));
      }
      shown.set(step, texts);
    }
    return shown;
  }

  private stepEnd(steps: StepRecord[], index: number, system: CiSystem): StepEnd['lines'] {
    const last = steps.length - 1;
    const snapshot =
      this.ends.get(index) ??
      (index === last
        ? this.lines.snapshot(steps[index]!.number, this.tailSize)
        : this.endBefore(steps, index));
    const lines: StepEnd['lines'] = [];
    for (const { raw, number } of snapshotLines(snapshot)) {
      const text = stripLine(raw);
      if (trim.call(text).length === 0) continue;
      const marker = ciMarker(text, system)?.marker.kind;
      if (marker === 'step' || marker === 'group' || marker === 'endgroup' || marker === 'quiet') continue;
      lines.push({ number, text: showLine(text) });
    }
    return lines;
  }

  /** A step that ended without a snapshot of its own: the ring's lines up to the next step. */
  private endBefore(steps: StepRecord[], index: number): RingSnapshot {
    const next = steps[index + 1]?.number ?? Number.POSITIVE_INFINITY;
    const snapshot = this.lines.snapshot(steps[index]!.number, this.tailSize);
    const keep = snapshot.numbers.filter((number) => number < next).length;
    return {
      texts: snapshot.texts.slice(0, keep),
      starts: snapshot.starts.slice(0, keep),
      ends: snapshot.ends.slice(0, keep),
      numbers: snapshot.numbers.slice(0, keep),
    };
  }
}
