/**
 * Go source as tokens, enough to read test tables: string, raw string and
 * rune literals whole, identifiers and numbers as words, every other
 * character alone; comments and spacing dropped, so reformatting a table or
 * commenting a case is no change to it. A line break becomes `;` where Go's
 * own rule inserts one (after a word, a literal or a closing bracket): that
 * is what ends a struct field.
 */
export function goTokens(text: string): string[] {
  const tokens: string[] = [];
  let at = 0;
  while (at < text.length) {
    const end = tokenEnd(text, at);
    const token = text.slice(at, end);
    if (token.includes('\n') && !token.startsWith('`') && ENDS_STATEMENT.test(tokens.at(-1) ?? '')) {
      tokens.push(';');
    }
    if (!/^\s/.test(token) && !token.startsWith('//') && !token.startsWith('/*')) tokens.push(token);
    at = Math.max(end, at + 1);
  }
  return tokens;
}

const ENDS_STATEMENT = /^([\w"'`]|[)\]}]$)/;

/** Where the token starting at `at` ends. */
function tokenEnd(text: string, at: number): number {
  const char = text[at] as string;
  if (/\s/.test(char)) return runEnd(text, at, /\s/);
  if (text.startsWith('//', at)) return lineEnd(text, at);
  if (text.startsWith('/*', at)) return blockEnd(text, at);
  if (char === '`') return closing(text, at, '`', false);
  if (char === '"' || char === "'") return closing(text, at, char, true);
  if (text.startsWith('...', at)) return at + 3;
  if (/\w/.test(char)) return runEnd(text, at, /[\w.]/);
  return at + 1;
}

function runEnd(text: string, at: number, pattern: RegExp): number {
  let end = at;
  while (end < text.length && pattern.test(text[end] as string)) end++;
  return end;
}

function lineEnd(text: string, at: number): number {
  const end = text.indexOf('\n', at);
  return end === -1 ? text.length : end;
}

function blockEnd(text: string, at: number): number {
  const end = text.indexOf('*/', at + 2);
  return end === -1 ? text.length : end + 2;
}

/** The end of a quoted literal (past its closing quote); an unclosed one ends with its line. */
function closing(text: string, at: number, quote: string, escapes: boolean): number {
  for (let end = at + 1; end < text.length; end++) {
    const char = text[end];
    if (escapes && char === '\\') end++;
    else if (char === quote) return end + 1;
    else if (char === '\n' && quote !== '`') return end;
  }
  return text.length;
}

/** The index of the bracket closing the one at `open` (`{`, `[` or `(`), or the end of the tokens. */
export function matching(tokens: readonly string[], open: number): number {
  let depth = 0;
  for (let at = open; at < tokens.length; at++) {
    const token = tokens[at] as string;
    if (token === '{' || token === '[' || token === '(') depth++;
    else if (token === '}' || token === ']' || token === ')') {
      depth--;
      if (depth === 0) return at;
    }
  }
  return tokens.length;
}

/** The indexes of `separator` between `start` and `end` that lie outside any bracket. */
export function topLevel(tokens: readonly string[], start: number, end: number, separator: string): number[] {
  const found: number[] = [];
  let depth = 0;
  for (let at = start; at < end; at++) {
    const token = tokens[at] as string;
    if (token === '{' || token === '[' || token === '(') depth++;
    else if (token === '}' || token === ']' || token === ')') depth--;
    else if (token === separator && depth === 0) found.push(at);
  }
  return found;
}

/** The tokens between `start` and `end` split at the top-level `separator`s; empty parts dropped. */
export function splitTopLevel(
  tokens: readonly string[],
  start: number,
  end: number,
  separator: string,
): string[][] {
  const bounds = [start - 1, ...topLevel(tokens, start, end, separator), end];
  return bounds
    .slice(1)
    .map((bound, index) => tokens.slice((bounds[index] as number) + 1, bound))
    .filter((part) => part.length > 0);
}

/** Tokens written back as one line a person reads: `{"Empty", "", false}`. */
export function joinTokens(tokens: readonly string[]): string {
  const word = (token: string | undefined) => token !== undefined && /^\w/.test(token);
  // A trailing comma before a closing bracket is layout, not content: `{a, b,}` is `{a, b}`.
  const kept = tokens.filter((token, index) => token !== ',' || !/^[)\]}]$/.test(tokens[index + 1] ?? ''));
  return kept
    .map((token, index) => {
      const previous = kept[index - 1];
      const spaced = previous === ',' || previous === ':' || (word(previous) && word(token));
      return index > 0 && spaced ? ` ${token}` : token;
    })
    .join('');
}
