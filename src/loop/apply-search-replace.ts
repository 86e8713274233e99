import type { Edit } from './schemas.js';

export type EditOutcome = { ok: true; content: string } | { ok: false; problem: string };

/**
 * Applies one search/replace edit to a file's text. The search text must
 * occur exactly once; when it does not, the problem says so in words the
 * model can act on. Windows line endings in the file do not defeat a search
 * written with plain newlines.
 */
export function applySearchReplace(path: string, current: string | null, edit: Edit): EditOutcome {
  if (edit.search === '') return { ok: true, content: edit.replace };
  if (current === null) {
    return { ok: false, problem: `${path}: the file does not exist; to create it, use an empty "search".` };
  }
  const crlf = current.includes('\r\n');
  const text = crlf ? current.replace(/\r\n/g, '\n') : current;
  const search = edit.search.replace(/\r\n/g, '\n');
  const count = occurrences(text, search);
  if (count === 0) {
    const hint = nearestLine(text, search);
    return {
      ok: false,
      problem:
        `${path}: the search text was not found. Copy it exactly from the file (read it first).` +
        (hint ? ` The closest line in the file is: ${JSON.stringify(hint)}` : ''),
    };
  }
  if (count > 1) {
    return {
      ok: false,
      problem: `${path}: the search text occurs ${count} times; include more surrounding lines so it is unique.`,
    };
  }
  const index = text.indexOf(search);
  const replaced =
    text.slice(0, index) + edit.replace.replace(/\r\n/g, '\n') + text.slice(index + search.length);
  return { ok: true, content: crlf ? replaced.replace(/\n/g, '\r\n') : replaced };
}

function occurrences(text: string, search: string): number {
  let count = 0;
  for (let index = text.indexOf(search); index !== -1; index = text.indexOf(search, index + 1)) count++;
  return count;
}

/** The file line sharing the most characters with the first line of the search, to show what differs. */
function nearestLine(text: string, search: string): string | null {
  const wanted = (search.split('\n').find((line) => line.trim() !== '') ?? '').trim();
  if (wanted === '') return null;
  let best: string | null = null;
  let bestScore = 0;
  for (const line of text.split('\n')) {
    const candidate = line.trim();
    if (candidate === '') continue;
    const score = commonPrefix(candidate, wanted) + commonSuffix(candidate, wanted);
    if (score > bestScore) {
      bestScore = score;
      best = line;
    }
  }
  return bestScore >= Math.min(8, wanted.length / 2) ? best : null;
}

function commonPrefix(left: string, right: string): number {
  let index = 0;
  while (index < left.length && index < right.length && left[index] === right[index]) index++;
  return index;
}

function commonSuffix(left: string, right: string): number {
  let index = 0;
  while (
    index < left.length &&
    index < right.length &&
    left[left.length - 1 - index] === right[right.length - 1 - index]
  )
    index++;
  return index;
}
