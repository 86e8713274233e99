import { classify, isListingHeader, itemMarker, type LineClass } from './line-kinds.js';
import { shapeOf } from './line-shape.js';
import { stripLine } from './line-text.js';
import { LineSplitter } from './log-lines.js';
import { isNoise } from './output-noise.js';

/**
 * A command's output read as failure blocks, known noise and the rest, by the same line
 * classes the log excerpt ranks with (line-kinds.ts): a failing test's verdict or a
 * runner's failure-list entry opens a test block, an error that explains (a compiler
 * diagnostic, an exception, `error:`) opens an error block, and the lines that follow
 * belong to it until the next block, a summary, noise, or two blank lines. Progress-bar
 * redraws are collapsed as the log reader does (log-lines.ts).
 */
type LineRole = 'opener' | 'part' | 'summary' | 'plain' | 'noise' | 'blank';

export interface OutputLine {
  /** 1-based, as the log reader numbers lines (a redrawn progress bar counts each state). */
  n: number;
  /** Without colour codes; still latin1 (`showLine` makes it text). */
  stripped: string;
  role: LineRole;
}

export interface FailureBlock {
  kind: 'test' | 'error';
  /** Indexes into the lines, inclusive. */
  first: number;
  last: number;
}

export interface ReadOutput {
  lines: OutputLine[];
  blocks: FailureBlock[];
  totalLines: number;
}

/** A block longer than this is cut there: past it, more of one failure explains little. */
const MAX_BLOCK_LINES = 80;

interface Classified extends OutputLine {
  opens: FailureBlock['kind'] | null;
  indent: number;
  /** TAP's `...`, which ends a failure's details. */
  endsDetails: boolean;
  traceback: boolean;
}

export function readOutput(text: string): ReadOutput {
  const lines: Classified[] = [];
  let listing = false;
  const splitter = new LineSplitter(
    {
      line(raw, start, end, number) {
        const line = classifyLine(raw.slice(start, end), number, listing);
        if (line.role === 'summary' && !listing) listing = isListingHeader(shapeOf(line.stripped).core);
        lines.push(line);
      },
    },
    { keywords: /$^/, opens: () => false },
  );
  splitter.push(Buffer.from(text, 'utf8'));
  splitter.end();
  markNoiseHeadings(lines);
  const blocks = findBlocks(lines);
  return {
    lines,
    blocks,
    totalLines: splitter.lines,
  };
}

function classifyLine(raw: string, n: number, listing: boolean): Classified {
  const stripped = stripLine(raw);
  const shape = shapeOf(stripped);
  const { core, indent } = shape;
  const line: Classified = {
    n,
    stripped,
    role: 'plain',
    opens: null,
    indent,
    endsDetails: core === '...',
    traceback: core.startsWith('Traceback (most recent call last)'),
  };
  if (core.length === 0) line.role = 'blank';
  else {
    const found = classify(shape, true);
    line.opens = line.traceback ? 'error' : opener(found, core, listing);
    if (line.opens) line.role = 'opener';
    else if (isNoise(core) || found.kind === 'warning' || found.kind === 'noise') line.role = 'noise';
    else if (found.kind === 'summary' || isListingHeader(core)) line.role = 'summary';
  }
  return line;
}

function opener(found: LineClass, core: string, listing: boolean): FailureBlock['kind'] | null {
  if (found.kind === 'test' && found.weight >= 85) return 'test';
  if (listing && itemMarker(core) === 'numbered') return 'test';
  if (found.kind === 'error' && found.weight >= 60 && !core.startsWith('Caused by:')) return 'error';
  return null;
}

/**
 * A line that only heads noise (a file name over its lint warnings, a suite over its passing
 * tests, TAP's `# name` over its `ok` lines) is noise: a plain line with noise right below it
 * and a blank line or noise right above it. A failure's last line, above a coverage table, is not.
 */
function markNoiseHeadings(lines: Classified[]): void {
  let nextNoise = false;
  for (let index = lines.length - 1; index >= 0; index--) {
    const line = lines[index]!;
    if (line.role === 'blank') continue;
    const noise = line.role === 'noise';
    const above = lines[index - 1]?.role;
    if (line.role === 'plain' && nextNoise && (above === undefined || above === 'blank' || above === 'noise'))
      line.role = 'noise';
    nextNoise = noise;
  }
}

interface OpenBlock extends FailureBlock {
  traceback: boolean;
  /** The opening line's indentation: an error's own lines are indented deeper (frames, source, carets). */
  indent: number;
}

function findBlocks(lines: Classified[]): FailureBlock[] {
  const blocks: FailureBlock[] = [];
  let open: OpenBlock | null = null;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (open) {
      const verdict = continues(open, line, lines[index - 1]!, index);
      if (verdict !== 'closed') {
        if (line.role !== 'blank') line.role = 'part';
        open.last = index;
        if (verdict === 'continues') continue;
      }
      blocks.push(trimmed(open, lines));
      open = null;
      if (verdict === 'ends-here') continue;
    }
    if (line.opens) {
      // The plain line just above names what failed (`# test name`, `a.c: In function 'main':`).
      const first = index > 0 && lines[index - 1]!.role === 'plain' ? index - 1 : index;
      open = { kind: line.opens, first, last: index, traceback: line.traceback, indent: line.indent };
    }
  }
  if (open) blocks.push(trimmed(open, lines));
  return blocks;
}

/** Whether a line belongs to the open block, is its last line (`...` ends TAP's details), or is past it. */
function continues(
  open: OpenBlock,
  line: Classified,
  previous: Classified,
  index: number,
): 'continues' | 'ends-here' | 'closed' {
  if (index - open.first >= MAX_BLOCK_LINES) return 'closed';
  if (line.role === 'blank') return previous.role === 'blank' ? 'closed' : 'continues';
  if (line.role === 'noise' || line.role === 'summary') return 'closed';
  if (line.opens === 'test') return 'closed';
  if (line.opens === 'error') {
    // A traceback ends with its exception; inside a test's block an error is its message.
    if (open.traceback) return 'ends-here';
    if (open.kind === 'error') return 'closed';
  }
  if (open.kind === 'error' && !open.traceback && line.indent <= open.indent) return 'closed';
  return line.endsDetails ? 'ends-here' : 'continues';
}

/** Without the blank lines it ended on. */
function trimmed(block: FailureBlock, lines: Classified[]): FailureBlock {
  let last = block.last;
  while (last > block.first && lines[last]!.role === 'blank') last--;
  return { kind: block.kind, first: block.first, last };
}
