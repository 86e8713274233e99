import {
  type Candidate,
  type CandidateStore,
  PASSED_STEP_FACTOR,
  RUNNER_STEP_FACTOR,
} from './candidate-store.js';

/** One line of an excerpt: its 1-based number in the input and its cleaned text. */
export interface ExcerptLine {
  n: number;
  text: string;
}

export interface LogExcerpt {
  /** The step the job failed in, as the log titles it (`Run pytest -q`); null outside Actions logs. */
  failingStep: string | null;
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
  number: number;
  phase: 'setup' | 'run' | 'post';
  failed: boolean;
  exitCode: number | null;
  script: string[];
  scriptDone: boolean;
  shell: string | null;
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
  tail: { number: number; text: string }[];
  totalLines: number;
  maxLines: number;
  maxCharacters: number;
}): LogExcerpt {
  const { store, steps, maxLines, totalLines } = input;
  let characters = 0;
  /** Each shown line costs its text, its number, and maybe a gap mark before it. */
  const fits = (text: string): boolean => {
    characters += text.length + LINE_OVERHEAD;
    return characters <= input.maxCharacters;
  };
  const failing = failingStep(steps);
  const failingRecord = failing === null ? null : steps[failing]!;
  const base = {
    failingStep: failingRecord?.title ?? null,
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
    const header = `##[group]${failingRecord.title}`;
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
  for (const { candidate, score } of ranked) {
    if (chosen.has(candidate.number)) continue;
    if (score < EVIDENCE_SCORE && context-- <= 0) break;
    if (chosen.size >= maxLines || !fits(candidate.text)) {
      truncated = true;
      break;
    }
    chosen.set(candidate.number, candidate.text);
  }
  if (ranked.length === 0) {
    // Nothing looked like a failure: the end of the log is the best guess left.
    for (const { number, text } of input.tail.slice(-Math.min(maxLines, input.tail.length)).reverse()) {
      if (!fits(text)) break;
      chosen.set(number, text);
    }
  }
  const lines = [...chosen.entries()]
    .sort(([left], [right]) => left - right)
    .slice(0, maxLines)
    .map(([n, text]) => ({ n, text }));
  return { ...base, lines, truncated };
}

/** The step whose process exit failed the job; else the last step that reported an error. */
function failingStep(steps: StepRecord[]): number | null {
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
