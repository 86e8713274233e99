import { type CiMarker, type CiSystem, type StepPhase, shellOf } from './ci-format.js';
import { ciMarker } from './ci-markers.js';
import { showLine } from './line-text.js';
import { newStep, type StepRecord } from './select-lines.js';

// Called as `charCodeAt.call(text, i)`: see "String methods" in docs/ci-logs.md for why.
const { startsWith, trim } = String.prototype;

/** GitLab's runner paints the commands it echoes green; tools echoing `$ cmd` (yarn) do not. */
const GITLAB_ECHO = '\x1b[32;1m$ ';
const HEADER_LIMIT = 200;
const SCRIPT_LIMIT = 200;
const MAX_STEPS = 5000;

/**
 * Called as a step begins: `closed` is the index of the step that just ended, or null when the
 * log has run out of steps and the new one is merged into the last (see MAX_STEPS).
 */
export type StepStarting = (closed: number | null) => void;

/**
 * The structure of a job's log as its CI system marks it: the steps with their titles, phases,
 * scripts and how they ended, the system the markers name, and the state a marker leaves for the
 * lines after it (a script header being read, a section's phase, a title on the next line).
 * The excerpt builder asks it what a closely read line is, and weighs only the lines that are
 * output rather than structure.
 */
export class JobSteps {
  readonly steps: StepRecord[] = [newStep(null, 0, 'run')];
  system: CiSystem = 'generic';
  /** The phase of the GitLab section or Travis fold open, which commands echoed inside it share. */
  private sectionPhase: StepPhase | null = null;
  /** CircleCI: the line after the step's shebang is its command, and its title. */
  titleNext = false;
  /** Travis opens a `travis_time:` span right before each command it runs and echoes. */
  private afterTimeStart = false;
  private headerLines = -1;

  constructor(private readonly stepStarting: StepStarting) {}

  get current(): StepRecord {
    return this.steps[this.steps.length - 1]!;
  }

  /** In a step header, until its script ends: later header lines (env) matter only if flagged. */
  get readingScript(): boolean {
    return this.headerLines >= 0 && !this.current.scriptDone;
  }

  /**
   * The CI marker a line is, if any, with the format it names. The raw line, `chunk.slice(start, end)`,
   * still has its colour codes, which tell GitLab's own echo of a command from a tool's.
   */
  markerOf(chunk: string, start: number, end: number, text: string): CiMarker | null {
    const echoed =
      (this.system === 'travis' && this.afterTimeStart) ||
      (this.system === 'gitlab' && chunk.slice(start, end).includes(GITLAB_ECHO));
    this.afterTimeStart = false;
    const detected = ciMarker(text, this.system, echoed);
    if (detected === null) return null;
    // The first system seen names the log's format; Azure writes Actions' markers too.
    if (this.system === 'generic' || detected.system === 'azure-pipelines') this.system = detected.system;
    this.afterTimeStart = startsWith.call(text, 'travis_time:start:');
    return detected.marker;
  }

  /**
   * A line of structure read: true when it was the header or title a marker announced, or a marker
   * of steps and sections; errors and warnings are the builder's to weigh.
   */
  readStructure(text: string): boolean {
    if (this.headerLines >= 0) {
      this.readHeader(text);
      return true;
    }
    if (this.titleNext) {
      this.readTitle(text);
      return true;
    }
    return false;
  }

  /**
   * A marker other than an error or a warning: how it changes the steps. True when a step marker
   * opened a step (a failure list open before it ends there).
   */
  onMarker(marker: CiMarker, text: string, number: number): boolean {
    switch (marker.kind) {
      case 'step':
        return this.onStepMarker(marker, text, number);
      case 'endgroup':
        this.headerLines = -1;
        return false;
      case 'quiet':
        if (marker.closes) this.sectionPhase = null;
        return false;
      case 'skipped':
        this.current.phase = 'post';
        return false;
      case 'epilogue':
        if (this.current.phase !== 'post') this.startStep(null, number, 'post', null);
        return false;
      default:
        return false;
    }
  }

  private onStepMarker(marker: Extract<CiMarker, { kind: 'step' }>, text: string, number: number): boolean {
    // GitLab titles a section with the same name on the line after its marker.
    if (marker.title !== null && marker.title === this.current.title && number - this.current.number <= 2)
      return false;
    // A command echoed inside a setup or cleanup section belongs to that phase.
    const command = marker.title?.startsWith('$ ') ?? false;
    if (!command) this.sectionPhase = marker.phase;
    const phase = command ? (this.sectionPhase ?? 'run') : marker.phase;
    this.startStep(marker.title === null ? null : showLine(marker.title), number, phase, showLine(text));
    this.headerLines = marker.header ? 0 : -1;
    this.titleNext = marker.titleNext ?? false;
    if (command) this.current.script.push(showLine(marker.title!.slice(2)));
    return true;
  }

  /** CircleCI: the first line after the step's shebang is its command, and its title. */
  private readTitle(text: string): void {
    if (trim.call(text).length === 0) return;
    this.titleNext = false;
    this.current.title = showLine(trim.call(text));
    this.current.script.push(this.current.title);
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

  private startStep(title: string | null, number: number, phase: StepPhase, header: string | null): void {
    const first = this.steps[0]!;
    if (this.steps.length === 1 && first.title === null && first.phase === 'run') first.phase = 'setup';
    const closing = this.current;
    this.headerLines = -1;
    if (this.steps.length >= MAX_STEPS) {
      // A log of endless steps: the rest is read as one step, titled by the latest.
      this.stepStarting(null);
      Object.assign(closing, { title, header, number, phase, script: [], scriptDone: false, shell: null });
      return;
    }
    this.stepStarting(this.steps.length - 1);
    // Only the failing step's script is ever shown; a job's verdict may yet blame the last run step.
    if (!closing.failed && closing.phase !== 'run') closing.script = [];
    this.steps.push(newStep(title, number, phase, header));
  }
}
