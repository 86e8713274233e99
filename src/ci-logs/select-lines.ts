import { type CandidateStore, PASSED_STEP_FACTOR, RUNNER_STEP_FACTOR } from './candidate-store.js';
import {
  ChosenLines,
  EVIDENCE_SCORE,
  fill,
  keepAll,
  knownLines,
  type Ranked,
  type StepEnd,
} from './chosen-lines.js';
import type { CiSystem } from './ci-format.js';
import { firstFailureBlocks } from './first-failures.js';
import type { PanicBlock } from './go-traceback.js';
import { isKnownNoise } from './noise-lines.js';
import { tailLines } from './tail-lines.js';

export type { StepEnd } from './chosen-lines.js';

/** One line of an excerpt: its 1-based number in the input and its cleaned text. */
interface ExcerptLine {
  n: number;
  text: string;
}

export interface LogExcerpt {
  /**
   * The step the job failed in, as the log titles it: `Run pytest -q` (Actions), a task (Azure),
   * `$ npm test` (GitLab, Travis), a stage (Jenkins), a command (CircleCI), a group (Buildkite).
   */
  failingStep: string | null;
  /** The CI system whose log structure was recognised; `generic` for plain console output. */
  system: CiSystem;
  exitCode: number | null;
  lines: ExcerptLine[];
  /** True when the line budget left out lines the excerpt would have kept. */
  truncated: boolean;
  totalLines: number;
  /** The failing step's script and shell as the log's step header echoed them. */
  stepScript: { run: string; shell: string | null } | null;
}

export interface StepRecord {
  title: string | null;
  /** The line that opened the step, as shown; null for the log's first, untitled step. */
  header: string | null;
  number: number;
  phase: 'setup' | 'run' | 'post';
  failed: boolean;
  exitCode: number | null;
  script: string[];
  scriptDone: boolean;
  shell: string | null;
}

/** A step just begun: nothing failed, no script read yet. */
export function newStep(
  title: string | null,
  number: number,
  phase: StepRecord['phase'],
  header: string | null = null,
): StepRecord {
  return {
    title,
    header,
    number,
    phase,
    failed: false,
    exitCode: null,
    script: [],
    scriptDone: false,
    shell: null,
  };
}

/** Lines scoring below this are not worth a reader's time, even with budget to spare. */
const MIN_SCORE = 12;
const MIN_CONTEXT_LINES = 20;
/** A failing test named next to its verdict (see line-kinds.ts), in a step that failed. */
const NAMED_TEST_SCORE = 85;
/** Once a failing test is named, errors unrelated to any test's verdict are likely logged noise. */
const UNATTACHED_FACTOR = 0.5;
const KEPT_WHOLE = new Set(['exit', 'annotation', 'summary', 'test', 'warning']);

export interface SelectInput {
  store: CandidateStore;
  steps: StepRecord[];
  whole: { number: number; text: string }[] | null;
  /** The failing step's last lines, then other failed steps', each oldest first (the log's, when no step failed). */
  stepEnds: StepEnd[];
  /** Lines around the evidence, by step. */
  contexts: Map<number, Map<number, string>>;
  system: CiSystem;
  totalLines: number;
  /** The number of the first line `tail -n maxLines` shows (see TailStart). */
  tailFirst: number;
  maxLines: number;
  maxCharacters: number;
  /** The first Go panic of each step, with the stack of the goroutine that panicked. */
  panics: PanicBlock[];
}

/**
 * The excerpt: the whole log when it fits; else what `tail` would keep of the failure (see
 * `keepTail`), the failing step's header, the evidence from earlier in the log by score, then
 * the rest of the budget filled (see `fill`).
 */
export function selectLines(input: SelectInput): LogExcerpt {
  const failing = failingStepOf(input.steps);
  const failingRecord = failing === null ? null : input.steps[failing]!;
  const base = {
    failingStep: failingRecord?.title ?? null,
    system: input.system,
    exitCode: failingRecord?.exitCode ?? null,
    totalLines: input.totalLines,
    stepScript: failingRecord ? scriptOf(failingRecord) : null,
  };
  const whole = wholeLines(input.whole, input.maxCharacters);
  if (whole !== null) return { ...base, lines: whole, truncated: false };
  const chosen = new ChosenLines(input.maxLines, input.maxCharacters);
  const tail = tailLines(input);
  keepAll(chosen, tail.failure, input.maxCharacters);
  if (failingRecord?.title && failingRecord.number > 0 && !chosen.done)
    chosen.add(failingRecord.number, failingRecord.header ?? failingRecord.title);
  const ranked = rank(input.store, input.steps);
  // The failing tests named anywhere, the library frames of the tail's traces, the first failure of each kind whole.
  const named = ranked.filter(
    ({ candidate, score }) => candidate.kind === 'test' && score >= NAMED_TEST_SCORE,
  );
  keepAll(
    chosen,
    named.map(({ candidate }) => candidate),
    input.maxCharacters,
  );
  keepAll(chosen, tail.frames, input.maxCharacters);
  keepAll(chosen, panicOfFailure(input.panics, input.steps), input.maxCharacters);
  keepAll(chosen, firstFailureBlocks(ranked, knownLines(input)), input.maxCharacters);
  const truncated = !chooseEvidence(chosen, ranked);
  fill(chosen, ranked, input);
  return { ...base, lines: chosen.inOrder(), truncated };
}

/** The first Go panic in a step that failed (in any step, when none did), whole. */
function panicOfFailure(panics: PanicBlock[], steps: StepRecord[]): PanicBlock['lines'] {
  const anyFailed = steps.some((step) => step.failed);
  return panics.find(({ step }) => !anyFailed || steps[step]!.failed)?.lines ?? [];
}

/** A short log whole, when every line fits the character budget; else null. */
function wholeLines(whole: SelectInput['whole'], maxCharacters: number): ExcerptLine[] | null {
  if (whole === null) return null;
  const chosen = new ChosenLines(Number.POSITIVE_INFINITY, maxCharacters);
  if (!whole.every(({ number, text }) => chosen.add(number, text))) return null;
  return whole.map(({ number, text }) => ({ n: number, text }));
}

/** The candidates worth showing, best first: by weight, less in steps that passed or belong to the runner. */
function rank(store: CandidateStore, steps: StepRecord[]): Ranked[] {
  const anyFailed = steps.some((step) => step.failed);
  const factor = (step: number): number => {
    const record = steps[step]!;
    if (record.phase !== 'run') return record.failed ? 1 : RUNNER_STEP_FACTOR;
    return record.failed || !anyFailed ? 1 : PASSED_STEP_FACTOR;
  };
  const candidates = [...store.all()];
  const verdicts = candidates.some(
    (candidate) => candidate.kind === 'test' && candidate.weight >= 85 && factor(candidate.step) === 1,
  );
  const ranked: Ranked[] = [];
  for (const candidate of candidates) {
    if (isKnownNoise(candidate.text)) continue;
    let score = candidate.weight * factor(candidate.step);
    if (verdicts && !candidate.attached && !KEPT_WHOLE.has(candidate.kind)) score *= UNATTACHED_FACTOR;
    if (score >= MIN_SCORE) ranked.push({ candidate, score });
  }
  return ranked.sort(
    (left, right) => right.score - left.score || left.candidate.number - right.candidate.number,
  );
}

/**
 * The evidence, best first, with as much context as there is evidence (at least a few lines),
 * in what the tail's failure lines (see `keepTail`) left of the budget. False when the budget
 * left evidence out.
 */
function chooseEvidence(chosen: ChosenLines, ranked: Ranked[]): boolean {
  let context = Math.max(MIN_CONTEXT_LINES, ranked.filter(({ score }) => score >= EVIDENCE_SCORE).length);
  for (const { candidate, score } of ranked) {
    if (chosen.has(candidate.number)) continue;
    if (score < EVIDENCE_SCORE && context-- <= 0) return true;
    if (chosen.done || !chosen.add(candidate.number, candidate.text)) return false;
  }
  return true;
}

/** The step whose process exit failed the job; else the last step that reported an error. */
export function failingStepOf(steps: StepRecord[]): number | null {
  let failed: number | null = null;
  for (let index = steps.length - 1; index >= 0; index--) {
    const step = steps[index]!;
    if (step.exitCode !== null && step.exitCode !== 0) return index;
    if (step.failed && failed === null) failed = index;
  }
  return failed;
}

function scriptOf(step: StepRecord): LogExcerpt['stepScript'] {
  if (step.script.length === 0) return null;
  return { run: step.script.join('\n'), shell: step.shell };
}
