import {
  ANY_BUT_LINE_BREAK,
  ANY_BUT_SLASH,
  exactly,
  type WildcardMatcher,
  type WildcardPart,
  wildcardMatcher,
} from './wildcard.js';

/**
 * `*` matches within a path segment, `**` across segments (not across a line break), `?` one
 * character of a segment; everything else is literal. Matched whole, in linear time (see wildcard.ts).
 */
export function globMatcher(glob: string): WildcardMatcher {
  const parts: WildcardPart[] = [];
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index]!;
    if (char === '*' && glob[index + 1] === '*') {
      parts.push({ accepts: ANY_BUT_LINE_BREAK, repeat: 'any' });
      index++;
    } else if (char === '*') {
      parts.push({ accepts: ANY_BUT_SLASH, repeat: 'any' });
    } else if (char === '?') {
      parts.push({ accepts: ANY_BUT_SLASH, repeat: 'once' });
    } else {
      parts.push({ accepts: exactly(glob.charCodeAt(index)), repeat: 'once' });
    }
  }
  return wildcardMatcher(parts);
}

export function matchesAny(value: string, globs: readonly string[]): boolean {
  return globs.some((glob) => globMatcher(glob).test(value));
}
