/**
 * The packages bench/real-projects.ts fixes. Each names a published version,
 * the test runner, the command, and one bug: `fixed` is text of the published
 * source and `broken` what the bench puts in its place (the replayed answer
 * turns it back). Packages that ship their own tests use them; for the others
 * the bench adds a small test in the runner named, so more runners are covered
 * than the registry's packages happen to ship.
 */
export interface RealProject {
  name: string;
  version: string;
  runner: string;
  command: string;
  bug: { path: string; fixed: string; broken: string };
  analysis: string;
  /** For a package run by its own tests: the devDependencies those tests load (the rest is lint and release tooling). */
  testDependencies?: readonly string[];
  scripts?: Record<string, string>;
  devDependencies?: Record<string, string>;
  files?: Record<string, string>;
}

const msTest = `const assert = require('node:assert');
const ms = require('./index.js');

describe('ms', () => {
  it('reads hours', () => assert.strictEqual(ms('2h'), 7200000));
  it('formats hours', () => assert.strictEqual(ms(3 * 3600000), '3h'));
  it('reads minutes', () => assert.strictEqual(ms('1m'), 60000));
});
`;

const escapeTest = `const test = require('node:test');
const assert = require('node:assert');
const escape = require('./index.js');

test('escapes quotes', () => {
  assert.strictEqual(escape('"a" \\'b\\''), '&quot;a&quot; &#39;b&#39;');
});
test('escapes markup', () => {
  assert.strictEqual(escape('<a href="x">&</a>'), '&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;');
});
`;

const bytesTest = `const bytes = require('./index.js');

test('formats megabytes', () => {
  expect(bytes.format(5 * 1024 * 1024)).toBe('5MB');
});
test('parses megabytes', () => {
  expect(bytes.parse('2MB')).toBe(2 * 1024 * 1024);
});
`;

export const REAL_PROJECTS: readonly RealProject[] = [
  {
    name: 'minimist',
    version: '1.2.8',
    runner: 'tape (its own tests)',
    command: 'npm run tests-only',
    bug: {
      path: 'index.js',
      fixed: 'if ((/^0x[0-9a-f]+$/i).test(x)) { return true; }',
      broken: 'if ((/^0x[0-9]+$/i).test(x)) { return true; }',
    },
    analysis: 'isNumber no longer accepts hexadecimal digits a-f',
    testDependencies: ['tape', 'nyc'],
  },
  {
    name: 'qs',
    // The newest qs whose test tooling's versions this machine's registry serves.
    version: '6.14.0',
    runner: 'tape (its own tests)',
    command: 'npm run tests-only',
    bug: {
      path: 'lib/utils.js',
      fixed: "var strWithoutPlus = str.replace(/\\+/g, ' ');",
      broken: "var strWithoutPlus = str.replace(/\\+/g, '+');",
    },
    analysis: 'decode turns + into + instead of a space',
    testDependencies: [
      'tape',
      'nyc',
      'es-value-fixtures',
      'for-each',
      'has-bigints',
      'has-override-mistake',
      'has-property-descriptors',
      'has-proto',
      'has-symbols',
      'iconv-lite',
      'mock-property',
      'object-inspect',
      'safer-buffer',
      'qs-iconv',
    ],
  },
  {
    name: 'ms',
    version: '2.1.3',
    runner: 'mocha',
    command: 'npm test',
    bug: { path: 'index.js', fixed: 'var h = m * 60;', broken: 'var h = m * 6;' },
    analysis: 'an hour is 60 minutes, not 6',
    scripts: { test: 'mocha ms.test.js' },
    devDependencies: { mocha: '^10.8.2' },
    files: { 'ms.test.js': msTest },
  },
  {
    name: 'escape-html',
    version: '1.0.3',
    runner: 'node:test',
    command: 'npm test',
    bug: { path: 'index.js', fixed: "escape = '&#39;';", broken: "escape = '&#34;';" },
    analysis: "a single quote must become &#39;, not a double quote's entity",
    scripts: { test: 'node --test escape.test.js' },
    files: { 'escape.test.js': escapeTest },
  },
  {
    name: 'bytes',
    version: '3.1.2',
    runner: 'jest',
    command: 'npm test',
    bug: { path: 'index.js', fixed: 'mb: 1 << 20,', broken: 'mb: 1 << 2,' },
    analysis: 'a megabyte is 1 << 20 bytes',
    scripts: { test: 'jest bytes.test.js' },
    devDependencies: { jest: '^29.7.0' },
    files: { 'bytes.test.js': bytesTest },
  },
];
