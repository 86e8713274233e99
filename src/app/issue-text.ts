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

/** The fenced blocks in a language we can run, as the seeds' executor does with ```python and ```sh. */
export function scriptBlocks(text: string): ScriptBlock[] {
  const blocks: ScriptBlock[] = [];
  for (const match of text.matchAll(/^\s*(`{3,}|~{3,})\s*([\w+-]*)[^\n]*\n([\s\S]*?)^\s*\1\s*$/gm)) {
    const language = RUNNABLE.get((match[2] ?? '').toLowerCase());
    if (language) blocks.push({ language, code: match[3] ?? '' });
  }
  return blocks;
}
