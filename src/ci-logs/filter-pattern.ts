import {
  ANY_BUT_LINE_BREAK,
  ANY_BUT_SLASH,
  type CharacterTest,
  exactly,
  type WildcardMatcher,
  type WildcardPart,
  wildcardMatcher,
} from '../util/wildcard.js';

/**
 * GitHub Actions' filter patterns for `branches`, `branches-ignore` (and
 * tags, paths), as its workflow syntax documents them ("Filter pattern cheat
 * sheet"): `*` any characters but `/`, `**` any characters, `?` the preceding
 * character zero or one time, `+` one or more times, `[a-z0-9]` one listed
 * character, `\` a literal next character, and a leading `!` negating the
 * patterns before it. Written as a regular expression, matched whole.
 */
export function matchesFilterPattern(pattern: string, name: string): boolean {
  return filterMatcher(pattern)?.test(name) === true;
}

/**
 * `branches:`: a name is included when the last pattern that matches it is a
 * positive one (a `!pattern` after a match excludes it, a later positive one
 * brings it back).
 */
export function includedBy(patterns: readonly string[], name: string): boolean {
  let included = false;
  for (const pattern of patterns) {
    const negative = pattern.startsWith('!');
    if (matchesFilterPattern(negative ? pattern.slice(1) : pattern, name)) included = !negative;
  }
  return included;
}

/** `branches-ignore:`: a name is ignored when any pattern matches it (`!` has no use there). */
export function ignoredBy(patterns: readonly string[], name: string): boolean {
  return patterns.some((pattern) => matchesFilterPattern(pattern, name));
}

/**
 * The pattern as wildcard parts, matched in linear time (the workflow is the repository's text: as a
 * regular expression, a few `**` or `+` backtracked for ever on a name that does not fit), or null
 * when GitHub refuses it or it could not be written as a regular expression (`a?+`, `*+`).
 */
function filterMatcher(pattern: string): WildcardMatcher | null {
  const parts: WildcardPart[] = [];
  /** How the last part is repeated: a `?` after a repeat only makes it lazy, and nothing may follow that. */
  let last: 'single' | 'repeated' | 'lazy' | null = null;
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index]!;
    if (char === '*') {
      const double = pattern[index + 1] === '*';
      // `**/` also matches no folder at all: `**/README.md` matches `README.md`.
      const folders = double && pattern[index + 2] === '/';
      parts.push(
        folders ? { folders: true } : { accepts: double ? ANY_BUT_LINE_BREAK : ANY_BUT_SLASH, repeat: 'any' },
      );
      last = 'repeated';
      index += folders ? 2 : double ? 1 : 0;
    } else if ((char === '?' || char === '+') && index > 0) {
      const previous = parts.at(-1);
      if (last === 'single' && previous && !('folders' in previous)) {
        parts[parts.length - 1] = { accepts: previous.accepts, repeat: char === '?' ? 'optional' : 'some' };
        last = 'repeated';
      } else if (last === 'repeated' && char === '?') last = 'lazy';
      else return null;
    } else if (char === '[') {
      const end = pattern.indexOf(']', index + 1);
      // An unclosed or empty bracket makes the whole pattern invalid: GitHub refuses such a workflow.
      if (end <= index + 1) return null;
      const inside = pattern.slice(index + 1, end);
      if (!/^[A-Za-z0-9-]+$/.test(inside)) return null;
      const listed = characterClass(inside);
      if (listed === null) return null;
      parts.push({ accepts: listed, repeat: 'once' });
      last = 'single';
      index = end;
    } else {
      // `\` makes the next character literal; a lone one at the end stands for itself.
      const literal = char === '\\' ? (pattern[++index] ?? '\\') : char;
      parts.push({ accepts: exactly(literal.charCodeAt(0)), repeat: 'once' });
      last = 'single';
    }
  }
  return wildcardMatcher(parts);
}

/** `a-z0-9` as a test of one character, or null when a range runs backwards. */
function characterClass(inside: string): CharacterTest | null {
  try {
    const listed = new RegExp(`[${inside}]`);
    return (code) => listed.test(String.fromCharCode(code));
  } catch {
    return null;
  }
}
