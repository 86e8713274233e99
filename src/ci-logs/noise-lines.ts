import { classify } from './line-kinds.js';
import { shapeOf } from './line-shape.js';
import { latin1 } from './log-lines.js';
import { isNoise } from './output-noise.js';

/**
 * Known noise in an excerpt's terms: the same lines the prompt's cut of a command's output drops
 * first (output-blocks.ts) — passing tests, coverage tables, progress, downloads, a lint run's
 * total with no error (output-noise.ts), and warnings and all-zero counts by the line classes
 * (line-kinds.ts) — read from a shown line (decoded, as kept lines are) in the latin1 form those
 * patterns are written for. Read only for the lines an excerpt may show, never on the per-line path.
 */
export function isKnownNoise(text: string): boolean {
  const shape = shapeOf(latin1(text));
  if (shape.core.length === 0) return false;
  if (isNoise(shape.core)) return true;
  const kind = classify(shape).kind;
  return kind === 'warning' || kind === 'noise';
}
