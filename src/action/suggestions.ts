import { parsePatch } from 'diff';

export interface SuggestionComment {
  path: string;
  /** First and last line (in the commit under review) the suggestion replaces. */
  startLine: number;
  line: number;
  body: string;
}

export interface Suggestions {
  comments: SuggestionComment[];
  /** Changes with no line to hang a suggestion on (new or deleted files, lines outside the diff), as Markdown. */
  leftOver: string[];
}

/**
 * One suggestion block per hunk of the fix: the hunk's old lines (context
 * included) are the range, its new lines the replacement, so "Commit
 * suggestion" on GitHub applies exactly the hunk.
 */
export function suggestionsFrom(diff: string): Suggestions {
  const comments: SuggestionComment[] = [];
  const leftOver: string[] = [];
  for (const file of parsePatch(diff)) {
    const path = stripPrefix(file.newFileName ?? '');
    const oldPath = stripPrefix(file.oldFileName ?? '');
    for (const hunk of file.hunks) {
      if (hunk.oldLines === 0 || path !== oldPath || path === '/dev/null') {
        const lines = [`--- ${file.oldFileName}`, `+++ ${file.newFileName}`, hunkHeader(hunk), ...hunk.lines];
        leftOver.push(`${fence(lines)}diff\n${lines.join('\n')}\n${fence(lines)}`);
        continue;
      }
      const replacement = hunk.lines
        .filter((line) => line.startsWith(' ') || line.startsWith('+'))
        .map((line) => line.slice(1));
      comments.push({
        path,
        startLine: hunk.oldStart,
        line: hunk.oldStart + hunk.oldLines - 1,
        body: `${fence(replacement)}suggestion\n${replacement.join('\n')}\n${fence(replacement)}`,
      });
    }
  }
  return { comments, leftOver };
}

function stripPrefix(name: string): string {
  return name.replace(/^[ab]\//, '');
}

function hunkHeader(hunk: {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
}): string {
  return `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`;
}

/** A fence longer than any backtick run in the code, so code with ``` cannot close the block early. */
function fence(lines: string[]): string {
  const longest = Math.max(
    2,
    ...lines.map((line) => Math.max(0, ...(line.match(/`+/g) ?? []).map((run) => run.length))),
  );
  return '`'.repeat(longest + 1);
}

/**
 * Splits the suggestions into those GitHub can place (every line inside one
 * hunk of the pull request's diff, new side) and the rest, written out for the
 * review text: GitHub refuses a review comment on any other line.
 */
export function placeable(
  suggestions: Suggestions,
  files: readonly { filename: string; patch?: string | undefined }[],
): Suggestions {
  const ranges = new Map(files.map((file) => [file.filename, newSideRanges(file.patch ?? '')]));
  const comments: SuggestionComment[] = [];
  const leftOver = [...suggestions.leftOver];
  for (const comment of suggestions.comments) {
    const inside = (ranges.get(comment.path) ?? []).some(
      ([first, last]) => first <= comment.startLine && comment.line <= last,
    );
    if (inside) comments.push(comment);
    else
      leftOver.push(`${comment.path}, lines ${comment.startLine}–${comment.line}, becomes:\n${comment.body}`);
  }
  return { comments, leftOver };
}

function newSideRanges(patch: string): [number, number][] {
  return [...patch.matchAll(/^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/gm)].map((match) => {
    const start = Number(match[1]);
    return [start, start + Number(match[2] ?? '1') - 1];
  });
}
