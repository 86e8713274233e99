import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * SECURITY.md's promises each name the test that fails when the promise breaks: a bullet under
 * "Boundaries and what each promises" carries one or more pointers written
 * test: `test/security/<file>.test.ts` › `<test title as vitest shows it>`
 * This keeps a promise from losing its test silently: a renamed, moved or deleted test fails here.
 */

const root = join(import.meta.dirname, '..', '..');
const POINTER = /test: `([^`]+)` › `([^`]+)`/g;

interface Pointer {
  file: string;
  title: string;
}

/** The promises (bullets, with their continuation lines) of the boundaries section. */
function promisesOf(markdown: string): string[] {
  const start = markdown.indexOf('## Boundaries and what each promises');
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end === -1 ? undefined : end);
  const promises: string[] = [];
  for (const line of section.split('\n')) {
    if (line.startsWith('- ')) promises.push(line);
    else if (line.startsWith('  ') && promises.length > 0) promises[promises.length - 1] += ` ${line.trim()}`;
  }
  return promises;
}

function pointersOf(promise: string): Pointer[] {
  return [...promise.matchAll(POINTER)].map((match) => ({ file: match[1]!, title: match[2]! }));
}

/**
 * The titles a test file declares (`it`, `test`, `attack`, `hostAttack`), as matchers: a template literal's
 * `${…}` stands for any text, but only a template with enough text of its own counts, so a title built
 * wholly from variables matches nothing.
 */
function titlesOf(source: string): ((title: string) => boolean)[] {
  const call = /\b(?:it|test|attack|hostAttack)\(\s*(['"`])((?:\\.|(?!\1)[^\\])*)\1/g;
  return [...source.matchAll(call)].flatMap((match) => {
    const text = match[2]!.replace(/\\(.)/g, '$1');
    if (match[1] !== '`' || !text.includes('${')) return [(title: string) => title === text];
    const parts = text.split(/\$\{[^}]*\}/);
    if (parts.join('').length < 10) return [];
    const pattern = new RegExp(
      `^${parts.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.+')}$`,
    );
    return [(title: string) => pattern.test(title)];
  });
}

/** Whether `title` (as vitest shows it: an attack's test is `stops: <attack>`) is declared in `source`. */
function declares(source: string, title: string): boolean {
  const bare = title.replace(/^stops: /, '');
  return titlesOf(source).some((matches) => matches(title) || matches(bare));
}

describe('SECURITY.md', () => {
  const promises = promisesOf(readFileSync(join(root, 'SECURITY.md'), 'utf8'));

  it('lists its promises', () => {
    expect(promises.length).toBeGreaterThan(20);
  });

  it('gives every promise a test in test/security', () => {
    const without = promises.filter((promise) => pointersOf(promise).length === 0);
    expect(without, 'each promise needs test: `test/security/….test.ts` › `title`').toEqual([]);
  });

  it('points only at test files and titles that exist', () => {
    const broken = promises.flatMap(pointersOf).filter(({ file, title }) => {
      const path = join(root, file);
      if (!file.startsWith('test/security/') || !file.endsWith('.test.ts') || !existsSync(path)) return true;
      return !declares(readFileSync(path, 'utf8'), title);
    });
    expect(broken).toEqual([]);
  });
});

describe('the pointer checker', () => {
  const source = [
    "it('answers a bad signature 400', () => {});",
    "attack(\n  'hog memory',\n  'memory limit',\n  async () => {},\n);",
    `attack(\`setup: \${what}, through the proxy\`, by, body);`,
    `attack(\`\${where}: \${what}\`, by, body);`,
  ].join('\n');

  it('finds plain, attack and template titles, and refuses what the file does not declare', () => {
    expect(declares(source, 'answers a bad signature 400')).toBe(true);
    expect(declares(source, 'stops: hog memory')).toBe(true);
    expect(declares(source, 'stops: setup: the Redis port, through the proxy')).toBe(true);
    expect(declares(source, 'stops: hog the CPU')).toBe(false);
    // A title made only of variables would match anything: it matches nothing.
    expect(declares(source, 'loop: anything at all')).toBe(false);
  });

  it('reads the pointers of a promise that spans lines', () => {
    const markdown = [
      '## Boundaries and what each promises',
      '- **A promise** across',
      '  two lines. test: `test/security/a.test.ts` › `stops: one`; test: `test/security/b.test.ts` › `two`',
      '- another',
      '## Next',
      '- not a promise',
    ].join('\n');
    const found = promisesOf(markdown);
    expect(found).toHaveLength(2);
    expect(pointersOf(found[0]!)).toEqual([
      { file: 'test/security/a.test.ts', title: 'stops: one' },
      { file: 'test/security/b.test.ts', title: 'two' },
    ]);
    expect(pointersOf(found[1]!)).toEqual([]);
  });
});
