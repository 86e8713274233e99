import { describe, expect, it } from 'vitest';
import { matchesFilterPattern } from '../../src/ci-logs/filter-pattern.js';
import { globMatcher } from '../../src/util/glob.js';

/** Every string up to `length` characters over `alphabet`. */
function strings(alphabet: string[], length: number): string[] {
  const all = [''];
  for (let size = 1; size <= length; size++)
    for (const text of all.filter((candidate) => candidate.length === size - 1))
      for (const letter of alphabet) all.push(text + letter);
  return all;
}

/** The glob as a regular expression, as it was written before: `**` `.*`, `*` `[^/]*`, `?` `[^/]`. */
function globPattern(glob: string): RegExp {
  let source = '';
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index]!;
    if (char === '*' && glob[index + 1] === '*') {
      source += '.*';
      index++;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** Actions' filter pattern as a regular expression, as it was written before (null: refused or not one). */
function filterPattern(pattern: string): RegExp | null {
  let source = '';
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index]!;
    if (char === '*') {
      const double = pattern[index + 1] === '*';
      const folders = double && pattern[index + 2] === '/';
      source += folders ? '(.+/)?' : double ? '.*' : '[^/]*';
      index += folders ? 2 : double ? 1 : 0;
    } else if ((char === '?' || char === '+') && index > 0) source += char;
    else if (char === '[') {
      const end = pattern.indexOf(']', index + 1);
      if (end <= index + 1) return null;
      const inside = pattern.slice(index + 1, end);
      if (!/^[A-Za-z0-9-]+$/.test(inside)) return null;
      source += `[${inside}]`;
      index = end;
    } else {
      const literal = char === '\\' ? (pattern[++index] ?? '\\') : char;
      source += literal.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
    }
  }
  try {
    return new RegExp(`^${source}$`);
  } catch {
    return null;
  }
}

describe('wildcard patterns', () => {
  const names = strings(['a', 'b', '/', '\n'], 5);

  it('match globs as their regular expressions did, on every short name', () => {
    const globs = ['*', '**', 'a*', '*/b', '**/b', 'a**b', 'a?b', '?', '**a**', '*a*b*', 'a/**/b', '*.b'];
    for (const glob of globs) {
      const matcher = globMatcher(glob);
      for (const name of names)
        expect(matcher.test(name), `${glob} ~ ${JSON.stringify(name)}`).toBe(globPattern(glob).test(name));
    }
  });

  it("match Actions' filter patterns as their regular expressions did, on every short name", () => {
    const patterns = [
      '*',
      '**',
      '**/b',
      'a**/b',
      '**/',
      'a+',
      'a+b',
      'ab?',
      'a?b+',
      '[ab]+',
      '[a-b]*',
      'a\\*',
      'a*?',
      '**?',
      '**/?',
      'a??',
      'a+?',
      'a?+',
      'a++',
      '*+',
      '**/+',
      '[b-a]',
      '[]',
      'a\\',
      '/**/a*',
    ];
    for (const pattern of patterns) {
      const expected = filterPattern(pattern);
      for (const name of names)
        expect(matchesFilterPattern(pattern, name), `${pattern} ~ ${JSON.stringify(name)}`).toBe(
          expected?.test(name) === true,
        );
    }
  });

  it('answer at once where a regular expression backtracked for seconds', () => {
    expect(globMatcher(`${'**a'.repeat(30)}b`).test('a'.repeat(90))).toBe(false);
    expect(matchesFilterPattern(`${'**a'.repeat(30)}b`, 'a'.repeat(90))).toBe(false);
    expect(matchesFilterPattern(`${'a+'.repeat(30)}b`, 'a'.repeat(60))).toBe(false);
    expect(matchesFilterPattern('*'.repeat(100_000), 'a')).toBe(true);
  });
});
