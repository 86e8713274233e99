import { diffLines } from 'diff';
import type { SuggestionComment, Suggestions } from './suggestions.js';

/**
 * For each line of `checkedOut` (1-based), its line in `head`, or 0 when
 * `head` has no such line (the base's side of a merge brought it).
 */
export function lineMap(head: string, checkedOut: string): number[] {
  const map = [0];
  let headLine = 1;
  for (const change of diffLines(head, checkedOut)) {
    const count = change.count ?? 0;
    if (change.removed) headLine += count;
    else if (change.added) for (let i = 0; i < count; i++) map.push(0);
    else for (let i = 0; i < count; i++) map.push(headLine++);
  }
  return map;
}

/**
 * The suggestions moved from the lines of the checked-out commit (a
 * pull_request run checks out the merge into the moved base) to the head
 * commit's, the lines review comments name on the RIGHT side. A range is
 * moved only when every line of it is one unbroken run in the head, so the
 * suggestion replaces there exactly what the fix replaced; the others go to
 * the review's text.
 */
export function moveToHead(
  suggestions: Suggestions,
  files: ReadonlyMap<string, { head: string | null; checkedOut: string | null }>,
): Suggestions {
  const comments: SuggestionComment[] = [];
  const leftOver = [...suggestions.leftOver];
  const maps = new Map<string, number[] | null>();
  for (const comment of suggestions.comments) {
    if (!maps.has(comment.path)) {
      const file = files.get(comment.path);
      const head = file?.head ?? null;
      const checkedOut = file?.checkedOut ?? null;
      maps.set(comment.path, head !== null && checkedOut !== null ? lineMap(head, checkedOut) : null);
    }
    const moved = headRange(comment, maps.get(comment.path) ?? null);
    if (moved !== null) comments.push(moved);
    else
      leftOver.push(
        `${comment.path}, lines ${comment.startLine}–${comment.line} of the merge commit (not all in the pull request's head), become:\n${comment.body}`,
      );
  }
  return { comments, leftOver };
}

function headRange(comment: SuggestionComment, map: number[] | null): SuggestionComment | null {
  if (map === null) return null;
  const first = map[comment.startLine] ?? 0;
  if (first === 0) return null;
  for (let line = comment.startLine; line <= comment.line; line++)
    if (map[line] !== first + (line - comment.startLine)) return null;
  return { ...comment, startLine: first, line: first + (comment.line - comment.startLine) };
}
