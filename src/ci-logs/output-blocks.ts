import { GoTraceback } from './go-traceback.js';
import { classify, isListingHeader, itemMarker, type LineClass } from './line-kinds.js';
import { codeFrameWeight, shapeOf } from './line-shape.js';
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
  /** The verdict or error that opened it (the line above may name what failed). */
  opener: number;
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
  /** A Go panic's head or the stack of the goroutine that panicked (go-traceback.ts): its block's. */
  panic: boolean;
  /** gcc's `note:` and `In file included from`: they belong to the diagnostic before them. */
  note: boolean;
  /** pytest's `===== title =====`: a section of its report begins. */
  section: string | null;
}

// `src/shop.h:3:6: note: declared here`, `In file included from src/a.c:2:`, its `                 from …` lines.
const NOTE = /^(?:[\w./\\-]+\.\w+:\d+(?::\d+)?: note: |In file included from |from \S+:\d+[:,]$)/;
const SECTION = /^={3,} (.+?) ={3,}$/;

export function readOutput(text: string): ReadOutput {
  const lines: Classified[] = [];
  let listing = false;
  const goroutines = new GoTraceback();
  const others: Classified[] = [];
  const splitter = new LineSplitter(
    {
      line(raw, start, end, number) {
        const line = classifyLine(raw.slice(start, end), number, listing);
        if (line.role === 'summary' && !listing) listing = isListingHeader(shapeOf(line.stripped).core);
        if (readTraceback(goroutines, line)) others.push(line);
        lines.push(line);
      },
    },
    { keywords: /$^/, opens: () => false },
  );
  splitter.push(Buffer.from(text, 'utf8'));
  splitter.end();
  stuckTests(goroutines, others);
  markNoiseDetails(lines);
  markNoiseHeadings(lines);
  const blocks = findBlocks(lines);
  return {
    lines,
    blocks,
    totalLines: splitter.lines,
  };
}

/** Another goroutine's stack after a Go panic's is noise (true); the panic's own lines stay in its block. */
function readTraceback(goroutines: GoTraceback, line: Classified): boolean {
  const read = goroutines.active ? goroutines.read(line.stripped, line.n) : 'after';
  if (read === 'other') {
    line.role = line.role === 'blank' ? 'blank' : 'noise';
    line.opens = null;
  } else if (read === 'panic') line.panic = true;
  else if (line.opens === 'error') goroutines.opens(line.stripped, line.n, 0);
  return read === 'other';
}

/** A stuck test's goroutine, after a test's timeout, is a failure block of its own (see go-traceback.ts). */
function stuckTests(goroutines: GoTraceback, others: Classified[]): void {
  goroutines.panics();
  for (const line of others) {
    if (goroutines.isOther(line.n) || line.role === 'blank') continue;
    const header = line.stripped.startsWith('goroutine ');
    line.role = header ? 'opener' : 'plain';
    line.opens = header ? 'error' : null;
    line.panic = !header;
  }
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
    panic: false,
    note: NOTE.test(core),
    section: SECTION.exec(core)?.[1] ?? null,
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
 * What belongs to noise is noise: the source a compiler quotes under its warning (`  9 | int n;`,
 * `    |     ^~~`), and pytest's warnings summary, from its `=== warnings summary ===` to the next section.
 */
function markNoiseDetails(lines: Classified[]): void {
  let quoting = false;
  let warnings = false;
  for (const line of lines) {
    if (line.section !== null) warnings = line.section === 'warnings summary';
    else if (warnings && line.role !== 'blank' && line.role !== 'opener') line.role = 'noise';
    if (line.role === 'noise' && !line.note) quoting = true;
    else if (quoting && line.role === 'plain' && codeFrameWeight(shapeOf(line.stripped).core) > 0)
      line.role = 'noise';
    else quoting = false;
  }
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
    const above = lines[index - 1];
    if (line.role === 'plain' && nextNoise && (above === undefined || headsFrom(above, line)))
      line.role = 'noise';
    nextNoise = noise;
  }
}

/** A blank line or noise above a heading; or a file's verdict over its suites (jest's `FAIL test/a.js`, then `  suite`). */
function headsFrom(above: Classified, line: Classified): boolean {
  if (above.role === 'blank' || above.role === 'noise') return true;
  return above.opens === 'test' && above.indent < line.indent;
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
      const first = firstLineOf(lines, index);
      // What it names is the block's: kept with it or not at all.
      for (let above = first; above < index; above++) lines[above]!.role = 'part';
      open = {
        kind: line.opens,
        first,
        last: index,
        opener: index,
        traceback: line.traceback,
        indent: line.indent,
      };
    }
  }
  if (open) blocks.push(trimmed(open, lines));
  return blocks;
}

/**
 * The plain line just above an opener names what failed (`# test name`, `a.c: In function 'main':`);
 * go test prints a test's messages, indented, before its verdict (`    a_test.go:9: got 1`, then
 * `--- FAIL: TestA`): the plain lines above it indented deeper are all its own.
 */
function firstLineOf(lines: Classified[], index: number): number {
  const opener = lines[index]!;
  let first = index > 0 && lines[index - 1]!.role === 'plain' ? index - 1 : index;
  while (first > 0 && first < index) {
    const above = lines[first - 1]!;
    if (above.role !== 'plain' || above.indent <= opener.indent || lines[first]!.indent <= opener.indent)
      break;
    first--;
  }
  return first;
}

/** Whether a line belongs to the open block, is its last line (`...` ends TAP's details), or is past it. */
function continues(
  open: OpenBlock,
  line: Classified,
  previous: Classified,
  index: number,
): 'continues' | 'ends-here' | 'closed' {
  if (index - open.first >= MAX_BLOCK_LINES || line.section !== null) return 'closed';
  if (line.panic) return 'continues';
  if (line.role === 'blank') return previous.role === 'blank' ? 'closed' : 'continues';
  if (open.kind === 'error' && line.note) return 'continues';
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
  return { kind: block.kind, first: block.first, last, opener: block.opener };
}
