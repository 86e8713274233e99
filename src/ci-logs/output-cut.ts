import { showLine } from './line-text.js';
import { type FailureBlock, type OutputLine, readOutput } from './output-blocks.js';

/**
 * A command's output cut to a budget, failures first and noise last (docs/ci-logs.md,
 * "Cutting a command's output"). In order, while they fit: the first failure block of each
 * kind (a failing test, an error), whole; the runner's summaries; the later blocks, each
 * whole or not at all; the other lines from the end back; noise from the end back, once
 * every failure is in. A block is never split, except a first one larger than the whole
 * budget, which keeps its start.
 */
interface CutOptions {
  maxCharacters: number;
  /** Most lines shown; no limit when not given. */
  maxLines?: number;
}

interface OutputCut {
  /** The kept lines in order, numbered as in the output. */
  lines: { n: number; text: string }[];
  totalLines: number;
  /** Whether anything was left out. */
  cut: boolean;
}

/** What a gap mark costs at most: `[... 123456 lines omitted ...]` and its line break. */
const GAP_COST = 32;
/** The longest line `showLine` returns (400 characters and ` […]`). */
const MAX_SHOWN = 406;

export function cutOutput(text: string, options: CutOptions): OutputCut {
  const { lines, blocks, totalLines } = readOutput(text);
  const budget = new Budget(
    lines,
    totalLines,
    options.maxCharacters,
    options.maxLines ?? Number.POSITIVE_INFINITY,
  );
  if (budget.takeAll(lines.map((_, index) => index))) return budget.result(totalLines);
  const firsts = firstOfEachKind(blocks);
  let everyBlock = true;
  for (const block of firsts) {
    if (budget.takeAll(range(block))) continue;
    everyBlock = false;
    if (block === blocks[0]) budget.takeWhileFits(range(block));
  }
  budget.takeWhileFits(indexesOf(lines, 'summary').reverse());
  for (const block of blocks) {
    if (firsts.includes(block)) continue;
    if (!budget.mayHold(block) || !budget.takeAll(range(block))) everyBlock = false;
  }
  budget.takeWhileFits(indexesOf(lines, 'plain').reverse());
  // Noise only beside every failure: a line of it is never shown where a failure was left out.
  if (everyBlock) budget.takeWhileFits(indexesOf(lines, 'noise').reverse());
  return budget.result(totalLines);
}

/** The cut as text: kept lines, and a mark for each run of left-out lines. */
export function formatCut(cut: OutputCut, gap = defaultGap): string {
  const out: string[] = [];
  let next = 1;
  for (const line of cut.lines) {
    if (line.n > next) out.push(gap(line.n - next));
    out.push(line.text);
    next = line.n + 1;
  }
  if (cut.totalLines >= next) out.push(gap(cut.totalLines - next + 1));
  return out.join('\n');
}

function defaultGap(count: number): string {
  return `[... ${count} line${count === 1 ? '' : 's'} omitted ...]`;
}

/**
 * Per kind, the first block with more than its verdict after it: a bare list of names (jest's
 * `✕ name` under its suite's name) comes before the details.
 */
function firstOfEachKind(blocks: FailureBlock[]): FailureBlock[] {
  const chosen = new Map<FailureBlock['kind'], FailureBlock>();
  for (const block of blocks) {
    const held = chosen.get(block.kind);
    if (!held || (held.last === held.opener && block.last > block.opener)) chosen.set(block.kind, block);
  }
  return [...chosen.values()].sort((left, right) => left.first - right.first);
}

function range(block: FailureBlock): number[] {
  return Array.from({ length: block.last - block.first + 1 }, (_, offset) => block.first + offset);
}

function indexesOf(lines: OutputLine[], role: OutputLine['role']): number[] {
  const found: number[] = [];
  lines.forEach((line, index) => {
    if (line.role === role) found.push(index);
  });
  return found;
}

/**
 * The lines kept so far and what showing them costs: each line's text and break, and a gap
 * mark for each run of left-out lines between them (counted exactly as lines come and go).
 * A redrawn line's earlier states (`\r`, see log-lines.ts) are numbered but never shown: a line
 * next to them always has a gap mark on that side.
 */
class Budget {
  private readonly kept: Uint8Array;
  /** 1 where numbers are missing before line i (at `lines.length`: after the last line). */
  private readonly hidden: Uint8Array;
  private characters = 0;
  private count = 0;
  private gaps: number;

  constructor(
    private readonly lines: OutputLine[],
    totalLines: number,
    private readonly maxCharacters: number,
    private readonly maxLines: number,
  ) {
    this.kept = new Uint8Array(lines.length);
    this.hidden = new Uint8Array(lines.length + 1);
    let next = 1;
    lines.forEach((line, index) => {
      this.hidden[index] = line.n > next ? 1 : 0;
      next = line.n + 1;
    });
    this.hidden[lines.length] = totalLines >= next ? 1 : 0;
    this.gaps = totalLines > 0 ? 1 : 0;
  }

  /** Keeps every line given, or none of them. */
  takeAll(indexes: number[]): boolean {
    const added = indexes.filter((index) => this.kept[index] === 0);
    for (const index of added) this.keep(index, 1);
    if (this.fits()) return true;
    for (const index of added.reverse()) this.keep(index, 0);
    return false;
  }

  /** Whether the block's lines alone (gap marks aside) fit in what is left: a cheap test before trying. */
  mayHold(block: FailureBlock): boolean {
    let cost = this.characters + this.gaps * GAP_COST;
    for (let index = block.first; index <= block.last && cost <= this.maxCharacters; index++) {
      if (this.kept[index] === 0) cost += this.costOf(index);
    }
    return cost <= this.maxCharacters;
  }

  /** Keeps the lines in the order given until one does not fit. */
  takeWhileFits(indexes: number[]): void {
    for (const index of indexes) if (!this.takeAll([index])) return;
  }

  result(totalLines: number): OutputCut {
    const lines: OutputCut['lines'] = [];
    this.kept.forEach((kept, index) => {
      if (kept) lines.push({ n: this.lines[index]!.n, text: showLine(this.lines[index]!.stripped) });
    });
    return { lines, totalLines, cut: this.count < this.lines.length };
  }

  private fits(): boolean {
    return this.characters + this.gaps * GAP_COST <= this.maxCharacters && this.count <= this.maxLines;
  }

  /** At most what `showLine` makes of the line, and its break: decoding only shortens, long lines are cut. */
  private costOf(index: number): number {
    return Math.min(this.lines[index]!.stripped.length, MAX_SHOWN) + 1;
  }

  private keep(index: number, value: 0 | 1): void {
    const before = this.hidden[index] === 1 || (index > 0 && this.kept[index - 1] === 0);
    const after =
      this.hidden[index + 1] === 1 || (index < this.lines.length - 1 && this.kept[index + 1] === 0);
    // Keeping a line inside a gap splits it in two; at a gap's edge it shrinks it; alone, it closes it.
    const change = before && after ? 1 : !before && !after ? -1 : 0;
    this.gaps += value === 1 ? change : -change;
    this.kept[index] = value;
    const cost = this.costOf(index);
    this.characters += value === 1 ? cost : -cost;
    this.count += value === 1 ? 1 : -1;
  }
}
