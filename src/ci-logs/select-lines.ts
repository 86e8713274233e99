import {
  type Candidate,
  type CandidateStore,
  PASSED_STEP_FACTOR,
  RUNNER_STEP_FACTOR,
} from './candidate-store.js';
import type { CiSystem } from './ci-format.js';

/** One line of an excerpt: its 1-based number in the input and its cleaned text. */
export interface ExcerptLine {
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

/** The last lines of a step, oldest first, with the step's index. */
export interface StepEnd {
  step: number;
  lines: { number: number; text: string }[];
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
/** Below this a line is context, not evidence; context is rationed to the evidence it serves. */
const EVIDENCE_SCORE = 40;
const MIN_CONTEXT_LINES = 20;
/** Once a failing test is named, errors unrelated to any test's verdict are likely logged noise. */
const UNATTACHED_FACTOR = 0.5;
const LINE_OVERHEAD = 40;
const KEPT_WHOLE = new Set(['exit', 'annotation', 'summary', 'test', 'warning']);

export function selectLines(input: {
  store: CandidateStore;
  steps: StepRecord[];
  whole: { number: number; text: string }[] | null;
  /** The failing step's last lines, then other failed steps', each oldest first (the log's, when no step failed). */
  stepEnds: StepEnd[];
  /** Lines around the evidence, by step. */
  contexts: Map<number, Map<number, string>>;
  system: CiSystem;
  totalLines: number;
  maxLines: number;
  maxCharacters: number;
}): LogExcerpt {
  const { store, steps, maxLines, totalLines } = input;
  let characters = 0;
  /** Each shown line costs its text, its number, and maybe a gap mark before it. */
  const fits = (text: string, limit = input.maxCharacters): boolean => {
    if (characters + text.length + LINE_OVERHEAD > limit) return false;
    characters += text.length + LINE_OVERHEAD;
    return true;
  };
  const failing = failingStepOf(steps);
  const failingRecord = failing === null ? null : steps[failing]!;
  const base = {
    failingStep: failingRecord?.title ?? null,
    system: input.system,
    exitCode: failingRecord?.exitCode ?? null,
    totalLines,
    stepScript: failingRecord ? scriptOf(failingRecord) : null,
  };
  if (input.whole?.every(({ text }) => fits(text))) {
    return { ...base, lines: input.whole.map(({ number, text }) => ({ n: number, text })), truncated: false };
  }
  characters = 0;
  const anyFailed = steps.some((step) => step.failed);
  const factor = (step: number): number => {
    const record = steps[step]!;
    if (record.phase !== 'run') return record.failed ? 1 : RUNNER_STEP_FACTOR;
    return record.failed || !anyFailed ? 1 : PASSED_STEP_FACTOR;
  };
  const chosen = new Map<number, string>();
  if (failingRecord?.title && failingRecord.number > 0) {
    const header = failingRecord.header ?? failingRecord.title;
    if (fits(header)) chosen.set(failingRecord.number, header);
  }
  const candidates = [...store.all()];
  const verdicts = candidates.some(
    (candidate) => candidate.kind === 'test' && candidate.weight >= 85 && factor(candidate.step) === 1,
  );
  const ranked: { candidate: Candidate; score: number }[] = [];
  for (const candidate of candidates) {
    let score = candidate.weight * factor(candidate.step);
    if (verdicts && !candidate.attached && !KEPT_WHOLE.has(candidate.kind)) score *= UNATTACHED_FACTOR;
    if (score >= MIN_SCORE) ranked.push({ candidate, score });
  }
  ranked.sort((left, right) => right.score - left.score || left.candidate.number - right.candidate.number);
  const evidence = ranked.filter(({ score }) => score >= EVIDENCE_SCORE).length;
  let context = Math.max(MIN_CONTEXT_LINES, evidence);
  let truncated = false;
  // However much evidence there is, part of the budget stays for the end of the failing step:
  // what a tail would have kept is not given up for the hundredth similar error above it.
  const reserve = Math.min(Math.floor(maxLines * STEP_END_RESERVE), input.stepEnds[0]?.lines.length ?? 0);
  const evidenceCharacters = reserve > 0 ? input.maxCharacters * (1 - STEP_END_RESERVE) : input.maxCharacters;
  for (const { candidate, score } of ranked) {
    if (chosen.has(candidate.number)) continue;
    if (score < EVIDENCE_SCORE && context-- <= 0) break;
    if (chosen.size >= maxLines - reserve || !fits(candidate.text, evidenceCharacters)) {
      truncated = true;
      break;
    }
    chosen.set(candidate.number, candidate.text);
  }
  fill(chosen, ranked, input, maxLines, fits);
  const lines = [...chosen.entries()]
    .sort(([left], [right]) => left - right)
    .slice(0, maxLines)
    .map(([n, text]) => ({ n, text }));
  return { ...base, lines, truncated };
}

/** The share of the budget kept for the end of the failing step, however much evidence there is. */
const STEP_END_RESERVE = 0.2;
/** Of the budget left after the evidence, the share that goes to the end of the failing step first. */
const STEP_END_SHARE = 0.5;
/** How far from a line of evidence its context reaches. */
const CONTEXT_REACH = 8;

/**
 * Recall first: the budget the evidence leaves is filled, in order, with the end of the
 * failing step (what `tail` would show, without the runner's cleanup), the lines around
 * each line of evidence, nearest first, and then the rest of the failing step's end.
 * Blank lines are left out: a gap mark says as much.
 */
function fill(
  chosen: Map<number, string>,
  ranked: { candidate: Candidate; score: number }[],
  input: { store: CandidateStore; stepEnds: StepEnd[]; contexts: Map<number, Map<number, string>> },
  maxLines: number,
  fits: (text: string) => boolean,
): void {
  let full = false;
  const take = (number: number, text: string): boolean => {
    if (full || chosen.size >= maxLines) return false;
    if (chosen.has(number)) return true;
    if (!fits(text)) {
      full = true;
      return false;
    }
    chosen.set(number, text);
    return true;
  };
  // The failing step's end first; other steps that failed (Travis runs every command of a script)
  // share the budget line for line, each from its own end backwards.
  const ends = input.stepEnds.map(({ lines }) => ({ lines, next: lines.length - 1 }));
  const takeEnds = (limit: number): void => {
    let share = limit;
    for (let progress = true; progress && share > 0 && !full && chosen.size < maxLines; ) {
      progress = false;
      for (const end of ends) {
        if (end.next < 0 || share <= 0 || full || chosen.size >= maxLines) continue;
        const line = end.lines[end.next--]!;
        progress = true;
        if (!chosen.has(line.number)) share--;
        take(line.number, line.text);
      }
    }
  };
  takeEnds(Math.ceil((maxLines - chosen.size) * STEP_END_SHARE));
  // Context stays inside the step of the line it surrounds.
  const known = new Map<number, { text: string; step: number }>();
  for (const [step, lines] of input.contexts)
    for (const [number, text] of lines) known.set(number, { text, step });
  for (const candidate of input.store.all()) known.set(candidate.number, candidate);
  for (const { lines, step } of input.stepEnds)
    for (const { number, text } of lines) known.set(number, { text, step });
  const hits = ranked.filter(({ score }) => score >= EVIDENCE_SCORE).map(({ candidate }) => candidate);
  for (let distance = 1; distance <= CONTEXT_REACH && !full && chosen.size < maxLines; distance++) {
    for (const hit of hits) {
      if (!chosen.has(hit.number)) continue;
      for (const number of [hit.number - distance, hit.number + distance]) {
        const line = known.get(number);
        if (line !== undefined && line.step === hit.step && line.text.trim().length > 0)
          take(number, line.text);
      }
    }
  }
  takeEnds(Number.POSITIVE_INFINITY);
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
