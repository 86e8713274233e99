import { excerptOutput } from '../loop/excerpt.js';
import { formatNumber } from './format.js';

/** GitHub rejects issue comments and pull request bodies longer than this. */
export const GITHUB_BODY_LIMIT = 65_536;
/** Check run `output.summary` and `output.text` each. */
export const CHECK_OUTPUT_LIMIT = 65_535;
/** Check run annotations accepted in one request. */
export const MAX_ANNOTATIONS_PER_REQUEST = 50;
/**
 * Bodies are built to this size, well under the limits: the final
 * redaction and our own templates may still add a little.
 */
export const BODY_BUDGET = 60_000;

/** What is cut first: outputs, then diffs, then tool results and raw answers, then prose. */
export type CutOrder = 'output' | 'diff' | 'detail' | 'prose';

const CUT_ORDER: readonly CutOrder[] = ['output', 'diff', 'detail', 'prose'];

/** Below these sizes a section says too little to be worth keeping part of. */
const FLOOR: Record<CutOrder, number> = { output: 6000, diff: 4000, detail: 500, prose: 500 };

/** A part of a body that may be shortened to fit; the rest of a body is kept whole. */
export interface Section {
  readonly cut: CutOrder;
  /** The text as it will be shown, already redacted. */
  readonly text: string;
  /** Turns the (possibly shortened) text into Markdown, e.g. a fenced block. */
  readonly render: (text: string) => string;
}

export type BodyPart = string | Section;

export function cutNote(characters: number): string {
  return `[… ${formatNumber(characters)} characters cut to fit GitHub's limit …]`;
}

/**
 * Shortens a section's text to at most `maxChars`, marking the cut. Outputs
 * keep their beginning, their end (where errors usually are) and, from the
 * middle, the error lines the loop's own excerpt picks; everything else
 * keeps its beginning.
 */
export function shorten(text: string, maxChars: number, cut: CutOrder): string {
  if (text.length <= maxChars) return text;
  const room = maxChars - cutNote(text.length).length - 1;
  if (room <= 0) return cutNote(text.length);
  if (cut === 'output') {
    const kept = keepEnds(text, room);
    return `${cutNote(text.length - kept.length)}\n${kept}`;
  }
  const kept = withoutBrokenPair(text.slice(0, lineStart(text, room, room * 0.8)));
  return `${kept}${kept.endsWith('\n') ? '' : '\n'}${cutNote(text.length - kept.length)}`;
}

/** A quarter of the room for the head, half for the tail, the rest for error lines between. */
function keepEnds(text: string, room: number): string {
  const head = withoutBrokenPair(text.slice(0, lineStart(text, Math.floor(room / 4), room / 8)));
  const tailFrom = text.length - Math.floor(room / 2);
  const lineAfter = text.indexOf('\n', tailFrom);
  const tail = text.slice(lineAfter >= 0 && lineAfter < tailFrom + room / 8 ? lineAfter + 1 : tailFrom);
  const middleRoom = room - head.length - tail.length - 2;
  const middle = text.slice(head.length, text.length - tail.length);
  const excerpt = middleRoom > 100 ? excerptOutput(middle, middleRoom) : '';
  return [head.replace(/\n$/, ''), excerpt, tail].filter((piece) => piece !== '').join('\n');
}

/** Where to cut before `limit`: after the last line end, unless that loses more than `slack`. */
function lineStart(text: string, limit: number, slack: number): number {
  const lineEnd = text.lastIndexOf('\n', limit - 1);
  return lineEnd >= 0 && lineEnd >= limit - slack ? lineEnd + 1 : limit;
}

/** A cut must not leave half of a surrogate pair behind. */
function withoutBrokenPair(text: string): string {
  const code = text.charCodeAt(text.length - 1);
  return code >= 0xd800 && code <= 0xdbff ? text.slice(0, -1) : text;
}

/**
 * Joins a body's parts, shortening sections until the whole fits `budget`:
 * outputs first, then diffs, then details, then prose; within each kind the
 * largest first, down to a common size. When even that is not enough, the
 * body is cut hard at `limit` so GitHub never refuses it.
 */
export function fitBody(parts: readonly BodyPart[], budget = BODY_BUDGET, limit = GITHUB_BODY_LIMIT): string {
  const caps = parts.map((part) => (typeof part === 'string' ? 0 : part.text.length));
  let body = render(parts, caps);
  for (let round = 0; round < 8 && body.length > budget; round++) {
    let excess = body.length - budget;
    for (const order of CUT_ORDER) {
      if (excess <= 0) break;
      excess -= lowerCaps(parts, caps, order, excess);
    }
    if (excess === body.length - budget) break;
    body = render(parts, caps);
  }
  return hardLimit(body, limit);
}

/** A last resort that may break the Markdown, but keeps the body postable. */
export function hardLimit(body: string, limit: number): string {
  if (body.length <= limit) return body;
  const note = `\n\n${cutNote(body.length - limit)}\n`;
  return `${body.slice(0, limit - note.length - 2)}${note}`;
}

function render(parts: readonly BodyPart[], caps: readonly number[]): string {
  return parts
    .map((part, index) =>
      typeof part === 'string' ? part : part.render(shorten(part.text, caps[index]!, part.cut)),
    )
    .join('');
}

/**
 * Lowers the caps of one kind of section to a common level that removes
 * `excess` characters (or as many as the floor allows); returns how many.
 */
function lowerCaps(parts: readonly BodyPart[], caps: number[], order: CutOrder, excess: number): number {
  const floor = FLOOR[order];
  const indexes = parts
    .map((part, index) => ({ part, index }))
    .filter(({ part, index }) => typeof part !== 'string' && part.cut === order && caps[index]! > floor)
    .map(({ index }) => index)
    .sort((left, right) => caps[right]! - caps[left]!);
  if (indexes.length === 0) return 0;
  let level = floor;
  let sum = 0;
  for (let count = 1; count <= indexes.length; count++) {
    sum += caps[indexes[count - 1]!]!;
    const next = count < indexes.length ? caps[indexes[count]!]! : floor;
    const candidate = Math.floor((sum - excess) / count);
    if (candidate >= Math.max(next, floor)) {
      level = candidate;
      break;
    }
  }
  let removed = 0;
  for (const index of indexes) {
    if (caps[index]! > level) {
      removed += caps[index]! - level;
      caps[index] = level;
    }
  }
  return removed;
}
