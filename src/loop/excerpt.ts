import { cutOutput, formatCut } from '../ci-logs/index.js';

/**
 * A command's output cut to fit a prompt or a comment: failures first and noise last, by the
 * same line classes as the CI-log excerpt (src/ci-logs/output-cut.ts). The first failing test
 * and the first error are kept whole, later failures whole or not at all, then the end of the
 * output; lint warnings, coverage tables, progress bars, downloads and passing tests go first.
 */
export function excerptOutput(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const cut = formatCut(cutOutput(text, { maxCharacters: maxChars }));
  // Only a budget smaller than one gap mark can leave the cut longer than asked.
  return cut.length <= maxChars ? cut : cut.slice(0, Math.max(0, maxChars));
}
