import { CandidateStore } from './candidate-store.js';
import { type CiMarker, type CiSystem, type StepPhase, shellOf } from './ci-format.js';
import { ciMarker } from './ci-markers.js';
import { CloseReading } from './close-reading.js';
import { FailureListing } from './failure-listing.js';
import { BARE_VERDICT, classify, isListingHeader, type LineClass } from './line-kinds.js';
import { shapeOf } from './line-shape.js';
import { showLine, stripLine } from './line-text.js';
import type { LineHandler } from './log-lines.js';
import { type LogExcerpt, newStep, type StepRecord, selectLines } from './select-lines.js';
import { StepEnds } from './step-ends.js';

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
/** GitLab's runner paints the commands it echoes green; tools echoing `$ cmd` (yarn) do not. */
const GITLAB_ECHO = '\x1b[32;1m$ ';
const HEADER_LIMIT = 200;
const SCRIPT_LIMIT = 200;
const MAX_STEPS = 5000;
/** Lines after a failing test's verdict that count as its details (pytest quotes long tracebacks). */
const ATTACHED_LINES = 200;
/** Lighter lines could never reach an excerpt (see MIN_SCORE), so they are not stored. */
const MIN_STORED_WEIGHT = 8;

export class ExcerptBuilder implements LineHandler {
  private readonly store: CandidateStore;
  private readonly listing = new FailureListing();
  private readonly steps: StepRecord[] = [newStep(null, 0, 'run')];
  private readonly ends: StepEnds;
  private system: CiSystem = 'generic';
  /** The phase of the GitLab section or Travis fold open, which commands echoed inside it share. */
  private sectionPhase: StepPhase | null = null;
  /** CircleCI: the line after the step's shebang is its command, and its title. */
  private titleNext = false;
  private contextUntil = 0;
  /** Travis opens a `travis_time:` span right before each command it runs and echoes. */
  private afterTimeStart = false;
  private head: { raw: string; number: number }[] | null = [];
  private headerLines = -1;
  private readonly reading = new CloseReading();
  private attachedUntil = 0;

  constructor(
    private readonly maxLines: number,
    private readonly maxCharacters: number,
  ) {
    this.store = new CandidateStore(Math.max(4 * maxLines, 600));
    this.ends = new StepEnds(maxLines, RECENT_LINES);
  }

  line(text: string, start: number, end: number, number: number, flagged: boolean): void {
    if (this.head) {
      if (this.head.length < this.maxLines) this.head.push({ raw: text.slice(start, end), number });
      else this.head = null;
    }
    if (flagged || this.reading.wants(number) || this.readingScript || this.listing.open || this.titleNext) {
      this.inspect(text.slice(start, end), number, flagged);
    } else if (number <= this.contextUntil && this.ends.wantsContext(this.steps)) {
      this.ends.addContextLine(this.steps, text.slice(start, end), number);
    }
    this.ends.push(text, start, end, number);
  }

  finish(totalLines: number): LogExcerpt {
    const whole = this.head?.map(({ raw, number }) => ({ number, text: showLine(stripLine(raw)) })) ?? null;
    return selectLines({
      store: this.store,
      steps: this.steps,
      whole,
      stepEnds: whole ? [] : this.ends.failedStepEnds(this.steps, this.system),
      contexts: whole ? new Map() : this.ends.shownContexts(this.system),
      system: this.system,
      totalLines,
      maxLines: this.maxLines,
      maxCharacters: this.maxCharacters,
    });
  }

  /** Context before a line of evidence from the ring, and after it as the lines come. */
  private surround(number: number): void {
    if (!this.ends.wantsContext(this.steps)) return;
    // Context stays inside the step: the lines around it belong to other commands.
    const first = this.current.number;
    for (let back = 1; back <= CONTEXT_BEFORE && number - back > first; back++) {
      const raw = this.ends.recent(number - back);
      if (raw !== null) this.ends.addContextLine(this.steps, raw, number - back);
    }
    this.contextUntil = Math.max(this.contextUntil, number + CONTEXT_AFTER);
  }

  private inspect(raw: string, number: number, flagged: boolean): void {
    const text = stripLine(raw);
    const echoed =
      (this.system === 'travis' && this.afterTimeStart) ||
      (this.system === 'gitlab' && raw.includes(GITLAB_ECHO));
    this.afterTimeStart = false;
    const detected = ciMarker(text, this.system, echoed);
    if (detected) {
      // The first system seen names the log's format; Azure writes Actions' markers too.
      if (this.system === 'generic' || detected.system === 'azure-pipelines') this.system = detected.system;
      this.afterTimeStart = text.startsWith('travis_time:start:');
      this.onMarker(detected.marker, text, number);
      return;
    }
    if (this.headerLines >= 0) {
      this.readHeader(text);
      return;
    }
    if (this.titleNext) {
      this.readTitle(text);
      return;
    }
    this.weigh(raw, text, number, flagged);
  }

  /** CircleCI: the first line after the step's shebang is its command, and its title. */
  private readTitle(text: string): void {
    if (text.trim().length === 0) return;
    this.titleNext = false;
    this.current.title = showLine(text.trim());
    this.current.script.push(this.current.title);
  }

  /** An output line: classified, weighed, and stored with its context if it may explain the failure. */
  private weigh(raw: string, text: string, number: number, flagged: boolean): void {
    const step = this.steps.length - 1;
    const shape = shapeOf(text);
    let found: LineClass = classify(shape, flagged);
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
      if (number <= this.contextUntil) this.ends.addContextLine(this.steps, raw, number);
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
    const banner = core.charCodeAt(0) === 95;
    // A verdict's message follows it after a blank line or two (jest: `expect(…)`, `Expected:`, `Received:`).
    const after = core === '* What went wrong:' ? 4 : banner ? 0 : found.kind === 'test' ? 6 : 2;
    const afterWeight = core === '* What went wrong:' ? 70 : Math.min(35, weight * 0.4);
    this.reading.follow(number, after, afterWeight);
  }

  private addFromRing(number: number, weight: number, step: number, attached: boolean): void {
    const raw = this.ends.recent(number);
    if (raw === null || !this.store.admits(weight)) return;
    const text = stripLine(raw);
    if (text.trim().length === 0 || ciMarker(text, this.system) !== null) return;
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
      if (ciMarker(text, this.system) !== null) continue;
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

  private onMarker(marker: CiMarker, text: string, number: number): void {
    switch (marker.kind) {
      case 'step':
        this.onStepMarker(marker, text, number);
        return;
      case 'endgroup':
        this.headerLines = -1;
        return;
      case 'quiet':
        if (marker.closes) this.sectionPhase = null;
        return;
      case 'skipped':
        this.current.phase = 'post';
        return;
      case 'epilogue':
        if (this.current.phase !== 'post') this.startStep(null, number, 'post', null);
        return;
      case 'error':
        this.onError(marker, text, number);
        return;
      case 'warning': {
        const step = this.steps.length - 1;
        this.store.add({ number, text: showLine(text), weight: 15, kind: 'warning', step, attached: false });
        return;
      }
      default:
        return;
    }
  }

  private onStepMarker(marker: Extract<CiMarker, { kind: 'step' }>, text: string, number: number): void {
    // GitLab titles a section with the same name on the line after its marker.
    if (marker.title !== null && marker.title === this.current.title && number - this.current.number <= 2)
      return;
    this.listing.close();
    // A command echoed inside a setup or cleanup section belongs to that phase.
    const command = marker.title?.startsWith('$ ') ?? false;
    if (!command) this.sectionPhase = marker.phase;
    const phase = command ? (this.sectionPhase ?? 'run') : marker.phase;
    this.startStep(marker.title === null ? null : showLine(marker.title), number, phase, showLine(text));
    this.headerLines = marker.header ? 0 : -1;
    this.titleNext = marker.titleNext ?? false;
    if (command) this.current.script.push(showLine(marker.title!.slice(2)));
  }

  /**
   * A step reports its failure (`##[error]`, `The command … exited with 1.`, `ERROR: script returned
   * exit code 1`); a job's verdict (`ERROR: Job failed`, `Done. Your build exited with 1.`,
   * `Finished: FAILURE`) comes after the runner's cleanup, and belongs to the last step that ran.
   */
  private onError(marker: Extract<CiMarker, { kind: 'error' }>, text: string, number: number): void {
    let step = this.steps.length - 1;
    if (marker.job) {
      const failed = this.steps.findLastIndex((record) => record.failed && record.phase === 'run');
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
      if (failed !== -1) step = failed;
      else while (step > 0 && this.steps[step]!.phase !== 'run') step--;
    }
    if (marker.job) this.lastWords(number, step);
    const record = this.steps[step]!;
    if (!record.failed && step !== this.steps.length - 1) this.store.reopen(step);
    record.failed = true;
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

  private startStep(
    title: string | null,
    number: number,
    phase: StepRecord['phase'],
    header: string | null,
  ): void {
    const first = this.steps[0]!;
    if (this.steps.length === 1 && first.title === null && first.phase === 'run') first.phase = 'setup';
    const closing = this.current;
    this.reading.reset();
    this.attachedUntil = 0;
    this.contextUntil = 0;
    this.headerLines = -1;
    if (this.steps.length >= MAX_STEPS) {
      // A log of endless steps: the rest is read as one step, titled by the latest.
      Object.assign(closing, { title, header, number, phase, script: [], scriptDone: false, shell: null });
      return;
    }
    const index = this.steps.length - 1;
    this.store.closeStep(index, closing.failed);
    this.ends.stepEnded(this.steps, index, this.system);
    // Only the failing step's script is ever shown; a job's verdict may yet blame the last run step.
    if (!closing.failed && closing.phase !== 'run') closing.script = [];
    this.steps.push(newStep(title, number, phase, header));
  }

  /** In a step header, until its script ends: later header lines (env) matter only if flagged. */
  private get readingScript(): boolean {
    return this.headerLines >= 0 && !this.current.scriptDone;
  }

  private get current(): StepRecord {
    return this.steps[this.steps.length - 1]!;
  }
}
