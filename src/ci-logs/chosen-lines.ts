import type { Candidate, CandidateStore } from './candidate-store.js';
import { isKnownNoise } from './noise-lines.js';

// Called as `charCodeAt.call(text, i)`: see "String methods" in docs/ci-logs.md for why.
const { trim } = String.prototype;

/** The last lines of a step, oldest first, with the step's index. */
export interface StepEnd {
  step: number;
  /** `noise`: known as noise by where it stands (another goroutine's stack after a Go panic's). */
  lines: { number: number; text: string; noise?: boolean }[];
}

/** Known noise by its text, or by where it stands. */
export function isNoiseLine(line: { text: string; noise?: boolean }): boolean {
  return line.noise === true || isKnownNoise(line.text);
}

/** A candidate with the score it ranks by. */
export interface Ranked {
  candidate: Candidate;
  score: number;
}

/** What every shown line costs on top of its text: its number, and maybe a gap mark before it. */
const LINE_OVERHEAD = 40;
/** Below this a line is context, not evidence; context is rationed to the evidence it serves. */
export const EVIDENCE_SCORE = 40;
/** Of the budget left after the evidence, the share that goes to the end of the failing step first. */
const STEP_END_SHARE = 0.5;
/** How far from a line of evidence its context reaches. */
const CONTEXT_REACH = 8;
/** Under a character budget (a prompt's), the most of it the tail's lines may take before the evidence. */
const TAIL_CHARACTER_SHARE = 0.6;

/** The lines chosen so far, by number, and what they cost of the character budget. */
export class ChosenLines {
  private readonly chosen = new Map<number, string>();
  private characters = 0;
  /** A line did not fit the character budget: nothing more is taken. */
  private full = false;

  constructor(
    readonly maxLines: number,
    private readonly maxCharacters: number,
  ) {}

  get size(): number {
    return this.chosen.size;
  }

  /** No line can be added any more: the line budget is used, or a line did not fit the characters. */
  get done(): boolean {
    return this.full || this.chosen.size >= this.maxLines;
  }

  has(number: number): boolean {
    return this.chosen.has(number);
  }

  /** Adds the line if its text fits within `limit` characters in all; says whether it did. */
  add(number: number, text: string, limit = this.maxCharacters): boolean {
    const cost = text.length + LINE_OVERHEAD;
    if (this.characters + cost > limit) return false;
    this.characters += cost;
    this.chosen.set(number, text);
    return true;
  }

  /** Adds the line while there is budget; true when it is (or already was) chosen. */
  take(number: number, text: string): boolean {
    if (this.done) return false;
    if (this.chosen.has(number)) return true;
    if (this.add(number, text)) return true;
    this.full = true;
    return false;
  }

  /** The chosen lines in log order, at most the line budget. */
  inOrder(): { n: number; text: string }[] {
    return [...this.chosen.entries()]
      .sort(([left], [right]) => left - right)
      .slice(0, this.maxLines)
      .map(([n, text]) => ({ n, text }));
  }
}

/**
 * Recall first: the budget the evidence leaves is filled, in order, with the end of the
 * failing step (what `tail` would show, without the runner's cleanup), the lines around
 * each line of evidence, nearest first, and then the rest of the failing step's end.
 * Blank lines are left out: a gap mark says as much.
 */
export function fill(
  chosen: ChosenLines,
  ranked: Ranked[],
  input: { store: CandidateStore; stepEnds: StepEnd[]; contexts: Map<number, Map<number, string>> },
): void {
  const ends = new StepEndQueue(input.stepEnds, false);
  ends.take(chosen, Math.ceil((chosen.maxLines - chosen.size) * STEP_END_SHARE));
  const hits = ranked.filter(({ score }) => score >= EVIDENCE_SCORE).map(({ candidate }) => candidate);
  takeContext(chosen, hits, knownLines(input));
  ends.take(chosen, Number.POSITIVE_INFINITY);
  // Known noise last: it is shown only where the budget has room once everything else is in.
  new StepEndQueue(input.stepEnds, true).take(chosen, Number.POSITIVE_INFINITY);
}

/**
 * Takes the lines in order while the budget lasts; under a character budget (a prompt's) at most
 * part of it, so the evidence above them still has room. False once one did not fit.
 */
export function keepAll(
  chosen: ChosenLines,
  lines: { number: number; text: string }[],
  maxCharacters: number,
): boolean {
  const limit = maxCharacters * TAIL_CHARACTER_SHARE;
  for (const line of lines) {
    if (chosen.has(line.number)) continue;
    if (chosen.done || !chosen.add(line.number, line.text, limit)) return false;
  }
  return true;
}

/**
 * The failing step's end first; other steps that failed (Travis runs every command of a script)
 * share the budget line for line, each from its own end backwards.
 */
class StepEndQueue {
  private readonly ends: { lines: StepEnd['lines']; next: number }[];

  /** `noise`: whether known noise is taken too. */
  constructor(
    stepEnds: StepEnd[],
    private readonly noise: boolean,
  ) {
    this.ends = stepEnds.map(({ lines }) => ({ lines, next: lines.length - 1 }));
  }

  /** Takes up to `limit` lines not yet chosen, one from each end in turn. */
  take(chosen: ChosenLines, limit: number): void {
    let share = limit;
    for (let progress = true; progress && share > 0 && !chosen.done; ) {
      progress = false;
      for (const end of this.ends) {
        if (end.next < 0 || share <= 0 || chosen.done) continue;
        const line = end.lines[end.next--]!;
        progress = true;
        if (!this.noise && isNoiseLine(line)) continue;
        if (!chosen.has(line.number)) share--;
        chosen.take(line.number, line.text);
      }
    }
  }
}

/** Every line the excerpt could show, by number, with its step: context, candidates and step ends. */
export function knownLines(input: {
  store: CandidateStore;
  stepEnds: StepEnd[];
  contexts: Map<number, Map<number, string>>;
}): Map<number, { text: string; step: number }> {
  const known = new Map<number, { text: string; step: number }>();
  for (const [step, lines] of input.contexts)
    for (const [number, text] of lines) known.set(number, { text, step });
  for (const candidate of input.store.all()) known.set(candidate.number, candidate);
  for (const { lines, step } of input.stepEnds)
    for (const { number, text, noise } of lines) if (noise !== true) known.set(number, { text, step });
  return known;
}

/** The lines around each chosen line of evidence, nearest first; context stays inside the step it surrounds. */
function takeContext(
  chosen: ChosenLines,
  hits: Candidate[],
  known: Map<number, { text: string; step: number }>,
): void {
  for (let distance = 1; distance <= CONTEXT_REACH && !chosen.done; distance++) {
    for (const hit of hits) {
      if (!chosen.has(hit.number)) continue;
      for (const number of [hit.number - distance, hit.number + distance]) {
        const line = known.get(number);
        if (
          line !== undefined &&
          line.step === hit.step &&
          trim.call(line.text).length > 0 &&
          !isKnownNoise(line.text)
        )
          chosen.take(number, line.text);
      }
    }
  }
}
