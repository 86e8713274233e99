import type { Range } from './secretlint-scan.js';

/**
 * What a server we sent a credential to may echo of it in an error, in a
 * shape no credential pattern knows. Too eager for a transcript ("Unexpected
 * token }" would lose its token), so only a redactor made for a server's
 * error text looks for these (`EchoRules` in redact.ts).
 */

/** A configured key this long is still that key in its own server's error, though too short to look for elsewhere. */
const MIN_ECHOED_LENGTH = 4;

/** Group 1, the keyword and its space, stays; the word after it goes. */
const WORD_AFTER_TOKEN = /\b((?:token|bearer)\s+)[^\s"']+/gi;
/** `sk-` and what follows, stars and dots included: a model server shows a wrong key as `sk-****abcd`. */
const MASKED_KEY = /\bsk-[A-Za-z0-9_*.-]{4,}/g;

/** The word after `token` or `bearer`: GitHub may echo a credential whose shape we do not know. */
export function wordAfterTokenRanges(text: string): Range[] {
  return [...text.matchAll(WORD_AFTER_TOKEN)].map((match) => [
    match.index + (match[1]?.length ?? 0),
    match.index + match[0].length,
  ]);
}

/** Keys shaped like OpenAI's however masked, and the configured values as written down to a few characters. */
export function maskedKeyRanges(text: string, values: readonly string[]): Range[] {
  const ranges: Range[] = [...text.matchAll(MASKED_KEY)].map((match) => [
    match.index,
    match.index + match[0].length,
  ]);
  for (const value of values) {
    if (value.length < MIN_ECHOED_LENGTH) continue;
    for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + value.length))
      ranges.push([at, at + value.length]);
  }
  return ranges;
}
