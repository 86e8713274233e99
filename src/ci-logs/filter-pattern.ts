/**
 * GitHub Actions' filter patterns for `branches`, `branches-ignore` (and
 * tags, paths), as its workflow syntax documents them ("Filter pattern cheat
 * sheet"): `*` any characters but `/`, `**` any characters, `?` the preceding
 * character zero or one time, `+` one or more times, `[a-z0-9]` one listed
 * character, `\` a literal next character, and a leading `!` negating the
 * patterns before it. Written as a regular expression, matched whole.
 */
export function matchesFilterPattern(pattern: string, name: string): boolean {
  return patternRegex(pattern)?.test(name) === true;
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

function patternRegex(pattern: string): RegExp | null {
  let source = '';
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index]!;
    if (char === '*') {
      const double = pattern[index + 1] === '*';
      // `**/` also matches no folder at all: `**/README.md` matches `README.md`.
      const folders = double && pattern[index + 2] === '/';
      source += folders ? '(.+/)?' : double ? '.*' : '[^/]*';
      index += folders ? 2 : double ? 1 : 0;
    } else if ((char === '?' || char === '+') && index > 0) {
      source += char;
    } else if (char === '[') {
      const end = pattern.indexOf(']', index + 1);
      // An unclosed or empty bracket makes the whole pattern invalid: GitHub refuses such a workflow.
      if (end <= index + 1) return null;
      const inside = pattern.slice(index + 1, end);
      if (!/^[A-Za-z0-9-]+$/.test(inside)) return null;
      source += `[${inside}]`;
      index = end;
    } else if (char === '\\') {
      source += literal(pattern[++index] ?? '\\');
    } else {
      source += literal(char);
    }
  }
  return new RegExp(`^${source}$`);
}

function literal(char: string): string {
  return char.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
