import type { ScriptBlock } from '../triggers/index.js';

/**
 * Issue text reaches the model only after what a reader cannot see is gone:
 * HTML comments, elements hidden by attribute or style, and invisible
 * characters (zero-width, bidirectional overrides). Remaining tags are
 * dropped and their text kept, so `<details>` content stays readable but no
 * markup can smuggle instructions past a human reviewer.
 */
export function stripHiddenText(text: string): string {
  let result = text.replace(/<!--[\s\S]*?(?:-->|$)/g, '');
  const hidden =
    /<(\w+)\b[^>]*\b(?:hidden\b|aria-hidden\s*=\s*["']?true|style\s*=\s*["'][^"']*(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0)[^"']*["'])[^>]*>[\s\S]*?<\/\1\s*>/gi;
  for (let previous = ''; previous !== result; ) {
    previous = result;
    result = result.replace(hidden, '');
  }
  result = result.replace(/<\/?[a-z][^>]*>/gi, '');
  return result.replace(/[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g, '');
}

const RUNNABLE = new Map([
  ['python', 'python'],
  ['py', 'python'],
  ['python3', 'python'],
  ['sh', 'sh'],
  ['bash', 'bash'],
  ['shell', 'bash'],
  ['js', 'node'],
  ['javascript', 'node'],
  ['node', 'node'],
]);

/**
 * The fenced blocks in a language we can run, as the seeds' executor does with ```python and ```sh:
 * a line opening with three or more backticks or tildes and a language, the lines after it, and a
 * line holding the same fence alone; whitespace-only lines before the closing fence are not code.
 * Read line by line: as one multi-line pattern it backtracked in time the cube of the text's length
 * (a 3 KB issue body of line breaks under an open fence: 25 s), and an issue's body is a stranger's.
 */
export function scriptBlocks(text: string): ScriptBlock[] {
  const blocks: ScriptBlock[] = [];
  const lines = text.split('\n');
  // The lines that could close a fence, by fence; each list is walked once, as openings come in order.
  const closers = new Map<string, { at: number[]; next: number }>();
  lines.forEach((line, at) => {
    const fence = line.trim();
    if (!FENCE_ONLY.test(fence)) return;
    const known = closers.get(fence) ?? { at: [], next: 0 };
    known.at.push(at);
    closers.set(fence, known);
  });
  // The last piece ends the text without a line break: a fence there opens nothing.
  for (let index = 0; index < lines.length - 1; index++) {
    const opening = OPENING.exec(lines[index]!);
    if (!opening) continue;
    const candidates = closers.get(opening[1]!);
    if (!candidates) continue;
    while (candidates.next < candidates.at.length && candidates.at[candidates.next]! <= index)
      candidates.next++;
    const closing = candidates.at[candidates.next];
    if (closing === undefined) continue;
    let last = closing;
    while (last > index + 1 && lines[last - 1]!.trim() === '') last--;
    const language = RUNNABLE.get((opening[2] ?? '').toLowerCase());
    const code = lines
      .slice(index + 1, last)
      .map((line) => `${line}\n`)
      .join('');
    if (language) blocks.push({ language, code });
    index = closing;
  }
  return blocks;
}

/** A fence opening its line (after blanks), and the language named after it; a fence alone on its line. */
const OPENING = /^\s*(`{3,}|~{3,})\s*([\w+-]*)/;
const FENCE_ONLY = /^(?:`{3,}|~{3,})$/;
