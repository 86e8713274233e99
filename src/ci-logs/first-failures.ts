import type { Ranked } from './chosen-lines.js';
import { frameOrigin, shapeOf } from './line-shape.js';
import { isKnownNoise } from './noise-lines.js';

/** The kinds of failure whose first block is kept whole: a failing test's, an error's. */
const BLOCK_KINDS = new Set(['test', 'error']);
/** A block's longest run: its opening line, message, quoted source and frames. */
const MAX_BLOCK_LINES = 40;
/** Blank lines a block may hold between two of its lines (a message, then its quoted source). */
const MAX_GAP = 2;

/**
 * The first failure of each kind, whole: the first failing test (or error) in a failed step whose
 * block goes on past its opening line — a verdict with its message, expected and received, quoted
 * source and frames — read over the known lines from it up to the next verdict or summary, a gap,
 * or MAX_BLOCK_LINES. A list of names (`✕ a`, `✕ b`) opens no block: each name stands alone, and
 * the runner's account of the first of them comes later. The first failure is usually the one that
 * points at the bug; later ones often follow from it.
 */
export function firstFailureBlocks(
  ranked: Ranked[],
  known: Map<number, { text: string; step: number }>,
): { number: number; text: string }[] {
  const openers = ranked
    .filter(({ candidate, score }) => BLOCK_KINDS.has(candidate.kind) && score >= OPENER_SCORE)
    .map(({ candidate }) => candidate)
    .sort((left, right) => left.number - right.number);
  const stops = new Set(
    ranked
      .filter(({ candidate }) => candidate.kind === 'test' || candidate.kind === 'summary')
      .map(({ candidate }) => candidate.number),
  );
  const blocks: { number: number; text: string }[] = [];
  const done = new Set<string>();
  for (const opener of openers) {
    if (done.has(opener.kind)) continue;
    const block = blockOf(opener, known, stops);
    if (block.length < 2) continue;
    done.add(opener.kind);
    blocks.push(...block);
  }
  return blocks;
}

/** An opening line of a block scores as evidence in a failed step. */
const OPENER_SCORE = 60;

function blockOf(
  opener: { number: number; text: string; step: number },
  known: Map<number, { text: string; step: number }>,
  stops: Set<number>,
): { number: number; text: string }[] {
  const block = [{ number: opener.number, text: opener.text }];
  let last = opener.number;
  for (let number = opener.number + 1; number <= last + MAX_GAP + 1; number++) {
    const line = known.get(number);
    if (line === undefined) continue;
    if (line.step !== opener.step || stops.has(number) || block.length >= MAX_BLOCK_LINES) break;
    last = number;
    // A library's frames are not what a block is kept whole for: they rank apart (see select-lines.ts).
    if (!isKnownNoise(line.text) && frameOrigin(shapeOf(line.text).core) !== 'library')
      block.push({ number, text: line.text });
  }
  return block;
}
