import { actionsMarker, isJobEpilogue, shellOf } from './actions-log.js';
import { CandidateStore } from './candidate-store.js';
import { FailureListing } from './failure-listing.js';
import { BARE_VERDICT, classify, isListingHeader, type LineClass } from './line-kinds.js';
import { LineRing } from './line-ring.js';
import { codeFrameWeight, frameOrigin, shapeOf } from './line-shape.js';
import { showLine, stripLine } from './line-text.js';
import type { LineHandler } from './log-lines.js';
import { type LogExcerpt, type StepRecord, selectLines } from './select-lines.js';

/**
 * Reads a log line by line (see LineSplitter) and keeps what may explain the
 * failure: scored candidate lines in a bounded store, a few recent lines for
 * context, and the steps with how they ended. Memory does not grow with the
 * log: the store prunes itself, and only the first and last lines are kept whole.
 */
const RING_SIZE = 4;
const TAIL_SIZE = 20;
const HEADER_LIMIT = 200;
const SCRIPT_LIMIT = 200;
/** After an error line, this many more lines are read closely (stack frames, messages). */
const FOLLOW_LINES = 3;
const MAX_FOLLOWED_FRAMES = 16;
const MAX_FOLLOWED_FRAMES_NEWEST_LAST = 200;
const MAX_STEPS = 5000;
const MAX_CODE_FRAME_LINES = 12;
/** Lines after a failing test's verdict that count as its details (pytest quotes long tracebacks). */
const ATTACHED_LINES = 200;
/** Lighter lines could never reach an excerpt (see MIN_SCORE), so they are not stored. */
const MIN_STORED_WEIGHT = 8;

export class ExcerptBuilder implements LineHandler {
  private readonly store: CandidateStore;
  private readonly listing = new FailureListing();
  private readonly steps: StepRecord[] = [newStep(null, 0, 'run')];
  private readonly ring = new LineRing(RING_SIZE);
  private readonly tail = new LineRing(TAIL_SIZE);
  private head: { raw: string; number: number }[] | null = [];
  private headerLines = -1;
  private followUntil = 0;
  private followWeight = 0;
  private traceRepositoryFrames = 0;
  private traceFrames = 0;
  private attachedUntil = 0;
  private lastFrame = 0;
  private codeFrameLines = 0;

  constructor(
    private readonly maxLines: number,
    private readonly maxCharacters: number,
  ) {
    this.store = new CandidateStore(Math.max(4 * maxLines, 600));
  }

  line(text: string, start: number, end: number, number: number, flagged: boolean): void {
    if (this.head) {
      if (this.head.length < this.maxLines) this.head.push({ raw: text.slice(start, end), number });
      else this.head = null;
    }
    if (flagged || number <= this.followUntil || this.readingScript || this.listing.open) {
      this.inspect(text.slice(start, end), number, flagged);
    }
    this.ring.push(text, start, end, number);
    this.tail.push(text, start, end, number);
  }

  finish(totalLines: number): LogExcerpt {
    const tail = this.tail.lines().map(({ raw, number }) => ({ number, text: showLine(stripLine(raw)) }));
    const whole = this.head?.map(({ raw, number }) => ({ number, text: showLine(stripLine(raw)) })) ?? null;
    return selectLines({
      store: this.store,
      steps: this.steps,
      whole,
      tail,
      totalLines,
      maxLines: this.maxLines,
      maxCharacters: this.maxCharacters,
    });
  }

  private inspect(raw: string, number: number, flagged: boolean): void {
    const text = stripLine(raw);
    const step = this.steps.length - 1;
    const marker = actionsMarker(text);
    if (marker) {
      this.onMarker(marker, text, number);
      return;
    }
    if (this.headerLines >= 0) {
      this.readHeader(text);
      return;
    }
    if (isJobEpilogue(text)) {
      if (this.current.phase !== 'post') this.startStep(null, number, 'post');
      return;
    }
    const shape = shapeOf(text);
    let found: LineClass = classify(shape, flagged);
    if (isListingHeader(shape.core)) {
      this.listing.start(shape);
      found = { kind: 'summary', weight: Math.max(found.weight, 60) };
    } else if (this.listing.open) {
      found = this.listing.read(shape, found);
    }
    let weight = found.weight;
    const origin = found.weight < 50 ? frameOrigin(shape.core) : null;
    if (origin) {
      const newestLast = shape.core.startsWith('File "');
      weight = this.frameWeight(origin, newestLast);
      this.lastFrame = number;
      // Deep frames of a long trace are runtime plumbing: stop reading closely after a few,
      // unless the trace ends with the newest frame, next to the exception.
      if (this.traceFrames <= (newestLast ? MAX_FOLLOWED_FRAMES_NEWEST_LAST : MAX_FOLLOWED_FRAMES)) {
        this.followUntil = Math.max(this.followUntil, number + FOLLOW_LINES);
        // The source line a Python frame quotes next ranks with its frame.
        this.followWeight = weight * 0.8;
      }
    } else {
      if (shape.core.length > 0 && number !== this.lastFrame + 1) {
        this.traceFrames = 0;
        this.traceRepositoryFrames = 0;
      }
      if (number <= this.followUntil && found.kind !== 'noise' && shape.core.length > 0) {
        weight = Math.max(weight, this.followWeight);
        // A compiler's quote of the source, under its error: read on while the gutter goes on.
        const quoted = codeFrameWeight(shape.core);
        if (quoted > 0 && this.codeFrameLines++ < MAX_CODE_FRAME_LINES) {
          weight = Math.max(found.weight, quoted);
          this.followUntil = Math.max(this.followUntil, number + 2);
        }
      }
    }
    if (found === BARE_VERDICT) {
      // A bare verdict (`FAILED`, `Caused an ERROR`) names no test: the line before it does.
      this.addFromRing(number - 1, 88, step, true);
    }
    if (found === BARE_VERDICT || (found.kind === 'test' && found.weight >= 85)) {
      this.attachedUntil = number + ATTACHED_LINES;
    }
    if (weight < MIN_STORED_WEIGHT || !this.store.admits(weight)) return;
    const attached = number <= this.attachedUntil || this.listing.open;
    this.store.add({ number, text: showLine(text), weight, kind: found.kind, step, attached });
    if (weight >= 50 && found.kind !== 'plain') {
      this.codeFrameLines = 0;
      this.addContext(number, weight, found, step, shape.core);
    }
  }

  private addContext(number: number, weight: number, found: LineClass, step: number, core: string): void {
    const before = found.kind === 'test' || found.kind === 'error' ? 2 : 1;
    const attached = found.kind === 'test' || number <= this.attachedUntil;
    for (let back = 1; back <= before; back++) {
      this.addFromRing(number - back, Math.min(30, weight * 0.3) - back, step, attached);
    }
    // A `___ test ___` banner opens the runner's quote of the test's source: no context worth following.
    const banner = core.charCodeAt(0) === 95;
    // A verdict's message follows it after a blank line or two (jest: `expect(…)`, `Expected:`, `Received:`).
    const after = core === '* What went wrong:' ? 4 : banner ? 0 : found.kind === 'test' ? 6 : 2;
    const afterWeight = core === '* What went wrong:' ? 70 : Math.min(35, weight * 0.4);
    if (number + after > this.followUntil || afterWeight > this.followWeight) {
      this.followUntil = number + after;
      this.followWeight = afterWeight;
    }
  }

  private addFromRing(number: number, weight: number, step: number, attached: boolean): void {
    const raw = this.ring.find(number);
    if (raw === null || !this.store.admits(weight)) return;
    const text = stripLine(raw);
    if (text.trim().length === 0 || text.startsWith('##[')) return;
    this.store.add({ number, text: showLine(text), weight, kind: 'plain', step, attached });
  }

  /**
   * Most runtimes print the newest frame first, so a trace's first repository frames
   * matter most. Python prints it last, right above the exception: there every
   * repository frame is kept in reach, the later ones ranked higher.
   */
  private frameWeight(origin: 'repository' | 'library', newestLast: boolean): number {
    this.traceFrames++;
    if (origin === 'repository') {
      this.traceRepositoryFrames++;
      if (newestLast) return Math.min(40, 28 + this.traceRepositoryFrames);
      return this.traceRepositoryFrames <= 4 ? 40 : 10;
    }
    return this.traceFrames <= 2 && !newestLast ? 15 : 2;
  }

  private onMarker(
    marker: NonNullable<ReturnType<typeof actionsMarker>>,
    text: string,
    number: number,
  ): void {
    const step = this.steps.length - 1;
    switch (marker.kind) {
      case 'step':
        this.listing.close();
        this.startStep(showLine(marker.title), number, 'run');
        this.headerLines = 0;
        return;
      case 'endgroup':
        this.headerLines = -1;
        return;
      case 'error': {
        const current = this.current;
        current.failed = true;
        if (marker.exitCode !== null) {
          current.exitCode = marker.exitCode;
          this.store.add({ number, text: showLine(text), weight: 100, kind: 'exit', step, attached: true });
          // The lines just before the exit are often the tool's last words, whatever the tool.
          for (let back = 1; back <= 3; back++) this.addFromRing(number - back, 36 - 4 * back, step, true);
        } else {
          this.store.add({
            number,
            text: showLine(text),
            weight: 95,
            kind: 'annotation',
            step,
            attached: true,
          });
          this.addFromRing(number - 1, 25, step, true);
        }
        this.listing.close();
        return;
      }
      case 'warning':
        this.store.add({ number, text: showLine(text), weight: 15, kind: 'warning', step, attached: false });
        return;
      default:
        return;
    }
  }

  /** Lines between `##[group]Run …` and `##[endgroup]`: the script as run, its shell and env. */
  private readHeader(text: string): void {
    this.headerLines++;
    const step = this.current;
    const shell = shellOf(text);
    // `with:` opens an action's inputs, `env:` the step's env: neither belongs to the script.
    if (shell !== null || text === 'env:' || text === 'with:') step.scriptDone = true;
    // Copied by showLine: a slice would keep its whole chunk of the log alive for the rest of the run.
    if (shell !== null) step.shell = showLine(shell);
    else if (!step.scriptDone && step.script.length < SCRIPT_LIMIT) step.script.push(showLine(text));
    if (this.headerLines > HEADER_LIMIT) this.headerLines = -1;
  }

  private startStep(title: string | null, number: number, phase: StepRecord['phase']): void {
    const first = this.steps[0]!;
    if (this.steps.length === 1 && first.title === null && first.phase === 'run') first.phase = 'setup';
    const closing = this.current;
    this.followUntil = 0;
    this.attachedUntil = 0;
    this.headerLines = -1;
    if (this.steps.length >= MAX_STEPS) {
      // A log of endless steps: the rest is read as one step, titled by the latest.
      Object.assign(closing, { title, number, phase, script: [], scriptDone: false, shell: null });
      return;
    }
    this.store.closeStep(this.steps.length - 1, closing.failed);
    // Only the failing step's script is ever shown.
    if (!closing.failed) closing.script = [];
    this.steps.push(newStep(title, number, phase));
  }

  /** In a step header, until its script ends: later header lines (env) matter only if flagged. */
  private get readingScript(): boolean {
    return this.headerLines >= 0 && !this.current.scriptDone;
  }

  private get current(): StepRecord {
    return this.steps[this.steps.length - 1]!;
  }
}

function newStep(title: string | null, number: number, phase: StepRecord['phase']): StepRecord {
  return { title, number, phase, failed: false, exitCode: null, script: [], scriptDone: false, shell: null };
}
