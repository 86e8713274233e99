import type { CheckAnnotation } from '../code-host/code-host.js';
import { MAX_ANNOTATIONS_PER_REQUEST } from './limits.js';

/** Consecutive added lines of one file, numbered as in the file after the change. */
export interface LineRange {
  path: string;
  startLine: number;
  endLine: number;
}

const HUNK_HEADER = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/**
 * The added-line ranges of a unified diff (git's or the `diff` package's),
 * file by file. Hunk lengths are counted, so a removed line that reads
 * `--- x` is never taken for a file header. Deleted files have no lines.
 */
export function addedLineRanges(diff: string): LineRange[] {
  const ranges: LineRange[] = [];
  let path: string | null = null;
  let oldLeft = 0;
  let newLeft = 0;
  let newLine = 0;
  for (const line of diff.split('\n')) {
    if (oldLeft > 0 || newLeft > 0) {
      const kind = line[0] ?? ' ';
      if (kind === '+') {
        if (path !== null) addLine(ranges, path, newLine);
        newLine++;
        newLeft--;
        continue;
      }
      if (kind === '-' || kind === ' ') {
        if (kind === ' ') {
          newLine++;
          newLeft--;
        }
        oldLeft--;
        continue;
      }
      if (kind === '\\') continue;
      // The hunk was shorter than its header said: read this line as a header.
      oldLeft = 0;
      newLeft = 0;
    }
    if (line.startsWith('+++ ')) path = targetPath(line.slice(4));
    const hunk = HUNK_HEADER.exec(line);
    if (hunk) {
      oldLeft = Number(hunk[1] ?? 1);
      newLine = Number(hunk[2]);
      newLeft = Number(hunk[3] ?? 1);
    }
  }
  return ranges;
}

/** Notices on the added lines, at most one request's worth; `message` is shown on each. */
export function diffAnnotations(
  diff: string,
  message: string,
  { max = MAX_ANNOTATIONS_PER_REQUEST, title = 'Changed by selfdebug' } = {},
): CheckAnnotation[] {
  return addedLineRanges(diff)
    .slice(0, Math.min(max, MAX_ANNOTATIONS_PER_REQUEST))
    .map((range) => ({ ...range, level: 'notice', message, title }));
}

function addLine(ranges: LineRange[], path: string, line: number): void {
  const last = ranges.at(-1);
  if (last && last.path === path && last.endLine === line - 1) last.endLine = line;
  else ranges.push({ path, startLine: line, endLine: line });
}

/** `b/src/app.py`, `"b/na\303\257ve.py"` or `/dev/null` (a deleted file: null). */
function targetPath(header: string): string | null {
  let path = header.split('\t')[0]!.trimEnd();
  if (path.startsWith('"') && path.endsWith('"') && path.length >= 2) path = unquote(path.slice(1, -1));
  if (path === '/dev/null') return null;
  return path.startsWith('b/') ? path.slice(2) : path;
}

const ESCAPES: Record<string, number> = { n: 10, t: 9, '"': 34, '\\': 92, a: 7, b: 8, f: 12, r: 13, v: 11 };

/** Git's C-style quoting: escapes and octal bytes of UTF-8. */
function unquote(text: string): string {
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  for (let index = 0; index < text.length; index++) {
    const character = text[index]!;
    if (character !== '\\') {
      bytes.push(...encoder.encode(character));
      continue;
    }
    const octal = /^[0-7]{3}/.exec(text.slice(index + 1, index + 4));
    if (octal) {
      bytes.push(Number.parseInt(octal[0], 8));
      index += 3;
    } else {
      const next = text[index + 1] ?? '';
      bytes.push(ESCAPES[next] ?? next.charCodeAt(0));
      index += 1;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}
