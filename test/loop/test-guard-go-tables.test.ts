import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { classifyEdits } from '../../src/loop/test-guard/classify-edits.js';
import { goTableCases } from '../../src/loop/test-guard/go-table-cases.js';

/**
 * Go's table-driven tests, on real test files of Go's own source tree (test/fixtures/test-guard/README.md):
 * rewriting a case's expected value makes a failing case pass as surely as a loosened assertion, so it is
 * an edited expected output; a new case is a new test, always fine.
 */
const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/test-guard/${name}.txt`, import.meta.url), 'utf8');

const context = { command: 'go test ./...', protectedPaths: [] };

function findings(path: string, before: string, after: string) {
  return classifyEdits([{ path, before, after }], context);
}

/** The text with `search` (which must occur) replaced once. */
function edit(text: string, search: string, replace: string): string {
  expect(text).toContain(search);
  return text.replace(search, () => replace);
}

interface Table {
  /** The file's path in its repository, and the fixture it is stored as. */
  path: string;
  fixture: string;
  /** How the table writes its cases: positional rows with a name, keyed rows, a declared type, a map. */
  form: string;
  /** A case's expected value rewritten. */
  edited: [string, string];
  /** A case added beside the others. */
  added: [string, string];
  /** A case removed. */
  deleted: string;
}

const tables: Table[] = [
  {
    path: 'src/go/token/token_test.go',
    fixture: 'token_test.go',
    form: '{"name", input, want} rows',
    edited: ['{"Keyword", "func", false},', '{"Keyword", "func", true},'],
    added: ['{"Number", "123", false},', '{"Number", "123", false},\n\t\t{"Operator", "+", false},'],
    deleted: '\t\t{"Space", " ", false},\n',
  },
  {
    path: 'src/os/exec/env_test.go',
    fixture: 'env_test.go',
    form: 'keyed rows without a name',
    edited: ['want:   []string{"k2=v2", "K1=v3"},', 'want:   []string{"k1=v1", "k2=v2", "K1=v3"},'],
    added: [
      '\t\t{\n\t\t\tin:   []string{"=a", "=b", "foo", "bar"},',
      '\t\t{\n\t\t\tin:   []string{"a=1"},\n\t\t\twant: []string{"a=1"},\n\t\t},\n' +
        '\t\t{\n\t\t\tin:   []string{"=a", "=b", "foo", "bar"},',
    ],
    deleted:
      '\t\t{\n\t\t\t// #52436: preserve invalid key-value entries (for now).\n' +
      '\t\t\t// (Maybe filter them out or error out on them at some point.)\n' +
      '\t\t\tin:   []string{"dodgy", "entries"},\n\t\t\twant: []string{"dodgy", "entries"},\n\t\t},\n',
  },
  {
    path: 'src/cmd/go/internal/str/str_test.go',
    fixture: 'str_test.go',
    form: 'a declared row type',
    edited: ['{"/foo/bar", "/foo", "bar"},', '{"/foo/bar", "/foo", "/bar"},'],
    added: ['{"/foo", "/", "foo"},', '{"/foo", "/", "foo"},\n\t\t{"/", "/", ""},'],
    deleted: '\t\t{"/foo", "/foo", ""},\n',
  },
  {
    path: 'src/cmd/trace/annotations_test.go',
    fixture: 'annotations_test.go',
    form: 'a map from case name to row',
    edited: ['\t\t\tgoroutines: 2,\n', '\t\t\tgoroutines: 3,\n'],
    added: [
      '\t\t"task1": {\n\t\t\tcomplete:   true,',
      '\t\t"task9": {},\n\t\t"task1": {\n\t\t\tcomplete:   true,',
    ],
    deleted: '\t\t"task1": {\n\t\t\tcomplete:   true,\n\t\t\tgoroutines: 1,\n\t\t},\n',
  },
];

describe.each(tables)('a Go test table of $form ($fixture)', (table) => {
  const text = fixture(table.fixture);

  it('reads the file as tables of cases', () => {
    expect(goTableCases(text).length).toBeGreaterThan(2);
  });

  it('finds a rewritten expected value, with the case and both rows', () => {
    const found = findings(table.path, text, edit(text, ...table.edited));
    expect(found.map((finding) => finding.kind)).toEqual(['expected-output-edited']);
    expect(found[0]?.reason).toMatch(
      /a case of a test table was rewritten, which changes what the test expects/,
    );
  });

  it('lets a new case through', () => {
    expect(findings(table.path, text, edit(text, ...table.added))).toEqual([]);
  });

  it('finds a deleted case', () => {
    const found = findings(table.path, text, edit(text, table.deleted, ''));
    expect(found.map((finding) => finding.kind)).toEqual(['test-deleted']);
    expect(found[0]?.reason).toMatch(/a case of a test table was deleted/);
  });
});

describe('Go test tables, read as Go reads them', () => {
  const text = fixture('token_test.go');

  it('names the case and quotes both rows', () => {
    const [finding] = findings(
      'token_test.go',
      text,
      edit(text, '{"Keyword", "func", false},', '{"Keyword", "func", true},'),
    );
    expect(finding?.reason).toBe(
      'token_test.go: a case of a test table was rewritten, which changes what the test expects ' +
        '(the case "Keyword" "{\\"Keyword\\", \\"func\\", false}" became "{\\"Keyword\\", \\"func\\", true}").',
    );
  });

  it('takes no layout change or comment for an edit', () => {
    const relaid = edit(
      edit(
        text,
        '{"Keyword", "func", false},',
        '{\n\t\t\t"Keyword", // a reserved word\n\t\t\t"func",\n\t\t\tfalse,\n\t\t},',
      ),
      '{"Empty", "", false},',
      '{"Empty",  "",   false}, /* nothing */',
    );
    expect(findings('token_test.go', text, relaid)).toEqual([]);
  });

  it('counts every rewritten case, and a fix to the code under test is none', () => {
    const twice = edit(
      edit(text, '{"Keyword", "func", false},', '{"Keyword", "func", true},'),
      '{"Number", "123", false},',
      '{"Number", "123", true},',
    );
    expect(findings('token_test.go', text, twice)[0]?.reason).toMatch(
      /: 2 cases of test tables were rewritten/,
    );
    expect(
      findings('token.go', 'package token\n', 'package token\n\nfunc IsIdentifier(string) bool\n'),
    ).toEqual([]);
  });

  it('tells the rows of a map apart by their key, and strings holding braces or commas stay whole', () => {
    const source = [
      'package p',
      'func TestSplit(t *testing.T) {',
      '\ttests := map[string]struct {',
      '\t\tin   string',
      '\t\twant []string',
      '\t}{',
      '\t\t"braces": {in: "{a,b}", want: []string{"{a", "b}"}},',
      '\t\t`raw`: {`a,"b"`, []string{`a`, `"b"`}},',
      '\t}',
      '}',
    ].join('\n');
    expect(goTableCases(source).map((entry) => entry.label)).toEqual(['"braces"', '`raw`']);
    const swapped = edit(source, '[]string{`a`, `"b"`}', '[]string{`a,"b"`}');
    expect(findings('split_test.go', source, swapped)[0]?.reason).toMatch(/the case `raw`/);
  });
});

describe('a Go test table that grows', () => {
  const text = fixture('env_test.go');

  it('keeps its cases when the table gains a field and a case that uses it', () => {
    const grown = edit(
      edit(text, '\t\twantErr bool\n', '\t\twantErr bool\n\t\tsorted  bool\n'),
      '\t\t{\n\t\t\tin:   []string{"=a", "=b", "foo", "bar"},',
      '\t\t{\n\t\t\tsorted: true,\n\t\t\tin:     []string{"b=1", "a=2"},\n\t\t\twant:   []string{"a=2", "b=1"},\n\t\t},\n' +
        '\t\t{\n\t\t\tin:   []string{"=a", "=b", "foo", "bar"},',
    );
    expect(findings('src/os/exec/env_test.go', text, grown)).toEqual([]);
  });
});
