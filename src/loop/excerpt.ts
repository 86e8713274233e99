/**
 * A failure's output cut down to what explains it: the first lines, the
 * last lines, and every line that looks like an error, each with a little
 * context, in their original order, with the gaps marked. Linear in the
 * input, so multi-megabyte outputs are fine.
 */
const ERROR_LINE =
  /error|exception|traceback|failed|failure|fatal|panic|assert|cannot|could not|not found|undefined|denied|refused|invalid|unexpected|segmentation|timed out|killed|^\s*E\s{2,}|^\s*at\s|^\s*File "/i;

export function excerptOutput(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const lines = text.split('\n');
  const keep = new Uint8Array(lines.length);
  const headLines = 15;
  const tailLines = 40;
  for (let index = 0; index < Math.min(headLines, lines.length); index++) keep[index] = 1;
  for (let index = Math.max(0, lines.length - tailLines); index < lines.length; index++) keep[index] = 1;
  for (let index = 0; index < lines.length; index++) {
    if (ERROR_LINE.test(lines[index] ?? '')) {
      for (let near = Math.max(0, index - 1); near <= Math.min(lines.length - 1, index + 2); near++)
        keep[near] = 2;
    }
  }
  const pieces: string[] = [];
  let skipped = 0;
  for (let index = 0; index < lines.length; index++) {
    if (keep[index]) {
      if (skipped > 0) pieces.push(`[... ${skipped} lines omitted ...]`);
      skipped = 0;
      pieces.push((lines[index] ?? '').slice(0, 500));
    } else {
      skipped++;
    }
  }
  if (skipped > 0) pieces.push(`[... ${skipped} lines omitted ...]`);
  return fitKeepingTail(pieces, maxChars);
}

/** When the kept lines are still too long, error lines from the middle go first; the tail stays. */
function fitKeepingTail(pieces: string[], maxChars: number): string {
  let joined = pieces.join('\n');
  if (joined.length <= maxChars) return joined;
  const tailBudget = Math.floor(maxChars * 0.6);
  const tail: string[] = [];
  let tailSize = 0;
  for (let index = pieces.length - 1; index >= 0; index--) {
    const piece = pieces[index] ?? '';
    if (tailSize + piece.length + 1 > tailBudget) break;
    tail.unshift(piece);
    tailSize += piece.length + 1;
  }
  const head: string[] = [];
  let headSize = 0;
  const headBudget = maxChars - tailSize - 40;
  for (const piece of pieces.slice(0, pieces.length - tail.length)) {
    if (headSize + piece.length + 1 > headBudget) break;
    head.push(piece);
    headSize += piece.length + 1;
  }
  joined = [...head, '[... more omitted ...]', ...tail].join('\n');
  return joined.length <= maxChars ? joined : joined.slice(joined.length - maxChars);
}
