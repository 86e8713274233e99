import type { CandidateStore } from './candidate-store.js';
import { isNoiseLine, type StepEnd } from './chosen-lines.js';
import { frameOrigin, shapeOf } from './line-shape.js';

const INDENTED = /^\s/;
/** How far past a line the reading kept its block may go on over unindented lines. */
const BLOCK_TAIL = 4;
/** The lines before an exit line that the reading keeps as its context and a tool's possible last words. */
const BEFORE_EXIT = 6;
const AFTER_EXIT = 8;

interface TailInput {
  store: CandidateStore;
  stepEnds: StepEnd[];
  contexts: Map<number, Map<number, string>>;
  /** The number of the first line `tail -n budget` shows (see TailStart). */
  tailFirst: number;
}

/**
 * Never worse than the tail: of the lines `tail -n budget` would show, those in a failed step (its
 * end, up to the runner's exit line) that the reading marked as evidence or as its context (a
 * failure's block: message, quoted source, frames) and that are not known noise, newest first. They are at most the
 * budget, and the noise and the runner's cleanup among them leave room for what explains the
 * failure from earlier in the log. A library's frames (the runtime's, the test framework's) come
 * apart: they give way to the failing tests named earlier when both do not fit.
 */
export function tailLines(input: TailInput): { failure: StepEnd['lines']; frames: StepEnd['lines'] } {
  const first = input.tailFirst;
  const { read, exits } = nearFailure(input);
  const near = new Set([...read, ...exits.keys()]);
  const failure: StepEnd['lines'] = [];
  const frames: StepEnd['lines'] = [];
  const lines = input.stepEnds.flatMap((end) => end.lines).sort((left, right) => left.number - right.number);
  const known = new Set(lines.map(({ number }) => number));
  for (const line of lines) {
    if (isNoiseLine(line)) continue;
    const origin = frameOrigin(shapeOf(line.text).core);
    // A block goes on over indented lines and frames until a blank line (never among a step's end
    // lines), and over a few more lines of any kind after what the reading kept (a diff's last mark).
    // A runner's exit line ends the step's output: what follows it is the runner's, not a block.
    // A block begun above the tail's first line goes on into it: the tail shows its rest. A frame
    // opening a step's kept end goes on a trace whose start fell out of it.
    const after = line.number - 1;
    if (
      (near.has(after) || (!known.has(after) && origin !== null)) &&
      !exits.has(after) &&
      (origin !== null || INDENTED.test(line.text) || readNear(read, line.number))
    )
      near.add(line.number);
    if (line.number >= first && near.has(line.number)) (origin === 'library' ? frames : failure).push(line);
  }
  return { failure: withVerdicts(failure, exits, known, first).reverse(), frames: frames.reverse() };
}

/**
 * A job's verdict (Jenkins' `Finished: FAILURE`, GitLab's `ERROR: Job failed`) comes after the
 * runner's cleanup, outside every step's end: in the tail it is the failure's too. In log order.
 */
function withVerdicts(
  failure: StepEnd['lines'],
  exits: Map<number, string>,
  known: Set<number>,
  first: number,
): StepEnd['lines'] {
  const verdicts = [...exits].filter(([number]) => number >= first && !known.has(number));
  if (verdicts.length === 0) return failure;
  const all = [...failure, ...verdicts.map(([number, text]) => ({ number, text }))];
  return all.sort((left, right) => left.number - right.number);
}

/**
 * The numbers the reading kept in the steps' ends: candidates, and the context around evidence;
 * and the runner's exit lines apart, with their text. The plain lines around an exit line (kept as
 * a tool's possible last words, and as the exit's context) are not taken for a failure on that
 * ground alone: in a tail they are as often the end of the noise, or the runner's own lines after it.
 */
function nearFailure(input: { store: CandidateStore; contexts: Map<number, Map<number, string>> }): {
  read: Set<number>;
  exits: Map<number, string>;
} {
  const candidates = [...input.store.all()];
  const exits = new Map(
    candidates.filter(({ kind }) => kind === 'exit').map(({ number, text }) => [number, text] as const),
  );
  const aroundExit = (number: number) => {
    for (const exit of exits.keys())
      if (number >= exit - BEFORE_EXIT && number <= exit + AFTER_EXIT) return true;
    return false;
  };
  const read = new Set<number>();
  for (const { number, kind } of candidates)
    if (kind !== 'exit' && (kind !== 'plain' || !aroundExit(number))) read.add(number);
  for (const lines of input.contexts.values())
    for (const number of lines.keys()) if (!aroundExit(number)) read.add(number);
  return { read, exits };
}

function readNear(read: Set<number>, number: number): boolean {
  for (let back = 1; back <= BLOCK_TAIL; back++) if (read.has(number - back)) return true;
  return false;
}
