import { describe, expect, it } from 'vitest';
import { classifyEdits, touchedTestFiles } from '../../src/loop/test-guard/classify-edits.js';
import type { TestFindingKind } from '../../src/loop/test-guard/findings.js';

function kinds(
  path: string,
  before: string | null,
  after: string | null,
  options: { command?: string; protectedPaths?: string[] } = {},
): TestFindingKind[] {
  const context = { command: options.command ?? 'npm test', protectedPaths: options.protectedPaths ?? [] };
  return classifyEdits([{ path, before, after }], context).map((finding) => finding.kind);
}

describe('the test guard: markers of every framework', () => {
  it.each([
    ['src/sum.spec.ts', "describe('sum', () => {", "describe.only('sum', () => {", 'only-added'],
    ['src/sum.test.tsx', "  it('adds', () => {", "  fit('adds', () => {", 'only-added'],
    ['src/sum.test.js', "  it('adds', () => {", "  xit('adds', () => {", 'skip-added'],
    [
      'test/test_sum.py',
      '    def test_adds(self):',
      '    @unittest.skip("later")\n    def test_adds(self):',
      'skip-added',
    ],
    ['pkg/sum_test.py', 'def test_adds():', '@pytest.mark.xfail\ndef test_adds():', 'skip-added'],
    [
      'pkg/sum_test.py',
      'def test_adds():',
      '@pytest.mark.skipif(True, reason="x")\ndef test_adds():',
      'skip-added',
    ],
    [
      'src/test/java/SumTest.java',
      '  @Test\n  void adds() {',
      '  @Test\n  @Disabled\n  void adds() {',
      'skip-added',
    ],
    ['spec/sum_spec.rb', 'describe Sum do', 'fdescribe Sum do', 'only-added'],
    ['spec/sum_spec.rb', '  it "adds" do', '  it "adds" do\n    pending "later"', 'skip-added'],
  ] as const)('%s: %j → %j is %s', (path, line, marked, kind) => {
    expect(kinds(path, `${line}\n  body\n`, `${marked}\n  body\n`)).toEqual([kind]);
  });
});

describe("the test guard: Rust's #[cfg(test)] modules", () => {
  const source = [
    'pub fn add(a: i32, b: i32) -> i32 {',
    '    a - b',
    '}',
    '',
    '#[cfg(test)]',
    'mod tests {',
    '    #[test]',
    '    fn adds() {',
    '        assert_eq!(super::add(1, 2), 3);',
    '    }',
    '}',
  ].join('\n');

  it('lets the code above the module change, and guards the module', () => {
    expect(kinds('src/lib.rs', source, source.replace('a - b', 'a + b'))).toEqual([]);
    expect(
      kinds('src/lib.rs', source, source.replace('    #[test]\n', '    #[test]\n    #[ignore]\n')),
    ).toEqual(['skip-added']);
    expect(kinds('src/lib.rs', source, source.replace('assert_eq!(super::add(1, 2), 3);', ''))).toEqual([
      'assertion-removed',
    ]);
    expect(
      touchedTestFiles([{ path: 'src/lib.rs', before: source, after: source.replace('a - b', 'a + b') }]),
    ).toEqual([]);
  });
});

describe('the test guard: expected output, CI, the command and coverage', () => {
  it('finds edited fixtures and snapshots, and lets new ones be added', () => {
    expect(kinds('tests/fixtures/out.txt', 'old\n', 'new\n')).toEqual(['expected-output-edited']);
    expect(kinds('src/__snapshots__/a.test.ts.snap', 'x', 'y')).toEqual(['expected-output-edited']);
    expect(kinds('pkg/testdata/golden.json', '{}', null)).toEqual(['expected-output-edited']);
    expect(kinds('tests/fixtures/new.txt', null, 'new\n')).toEqual([]);
  });

  it('finds CI workflows, added or changed', () => {
    expect(kinds('.github/workflows/ci.yml', 'run: npm test\n', 'run: true\n')).toEqual([
      'ci-workflow-edited',
    ]);
    expect(kinds('.github/workflows/new.yaml', null, 'on: push\n')).toEqual(['ci-workflow-edited']);
  });

  it("finds the command's own files: the test script, runner config, a script the command names", () => {
    const manifest = (test: string, build = 'tsc') => JSON.stringify({ scripts: { test, build } }, null, 2);
    expect(kinds('package.json', manifest('vitest run'), manifest('vitest run || true'))).toEqual([
      'command-edited',
    ]);
    expect(kinds('package.json', manifest('vitest run'), manifest('vitest run', 'tsc -b'))).toEqual([]);
    expect(
      kinds('package.json', manifest('a', 'x'), manifest('a', 'y'), { command: 'npm run build' }),
    ).toEqual(['command-edited']);
    expect(kinds('pytest.ini', '[pytest]\naddopts = -q\n', '[pytest]\naddopts = -q -k "not slow"\n')).toEqual(
      ['command-edited'],
    );
    expect(
      kinds(
        'pyproject.toml',
        '[tool.pytest.ini_options]\naddopts = "-q"\n',
        '[tool.pytest.ini_options]\naddopts = "-q -x"\n',
      ),
    ).toEqual(['command-edited']);
    expect(kinds('pyproject.toml', 'version = "1"\n', 'version = "2"\n')).toEqual([]);
    // A script the command runs is the code being fixed (the App debugs failing scripts), not a wrapper.
    expect(kinds('scripts/check.sh', 'exit 1\n', 'exit 0\n', { command: 'sh ./scripts/check.sh' })).toEqual(
      [],
    );
    expect(
      kinds('Makefile', 'test:\n\tgo test ./...\n', 'test:\n\ttrue\n', { command: 'make test' }),
    ).toEqual(['command-edited']);
  });

  it("guards a Makefile's test rules, not the build a fix may need", () => {
    const makefile =
      'OBJECTS = main.o\n\nthermo: $(OBJECTS)\n\t$(CC) -o $@ $(OBJECTS)\n\ncheck: thermo\n\t./run-tests.sh\n';
    const build = 'make && ./thermo 100';
    // A missing object file is the build's bug: the fix, not a weakening.
    expect(
      kinds('Makefile', makefile, makefile.replace('main.o', 'main.o convert.o'), { command: build }),
    ).toEqual([]);
    // The recipe of a test-like target, or of a target the command names, decides what judges the fix.
    expect(
      kinds('Makefile', makefile, makefile.replace('./run-tests.sh', 'true'), { command: build }),
    ).toEqual(['command-edited']);
    expect(
      kinds('Makefile', makefile, makefile.replace('-o $@', '-o $@ -w'), { command: 'make thermo' }),
    ).toEqual(['command-edited']);
  });

  it('finds a lowered coverage threshold', () => {
    expect(
      kinds('setup.cfg', '[coverage:report]\nfail_under = 90\n', '[coverage:report]\nfail_under = 10\n'),
    ).toEqual(['coverage-threshold-edited']);
    expect(
      kinds('jest.config.js', 'coverageThreshold: { global: { lines: 90 } }', 'coverageThreshold: {}'),
    ).toEqual(['coverage-threshold-edited']);
  });

  it("finds the repository's protected paths, and leaves other code alone", () => {
    expect(kinds('docs/api/v1.json', '{}', '{"a":1}', { protectedPaths: ['docs/api/**'] })).toEqual([
      'protected-path-edited',
    ]);
    expect(kinds('src/sum.ts', 'return a - b;', 'return a + b;')).toEqual([]);
  });
});

describe('the test files a fix touches', () => {
  it('lists each test file with why it counts as one', () => {
    const files = [
      {
        path: 'src/sum.test.ts',
        before: "it('a', () => {});",
        after: "it('a', () => {});\nit('b', () => {});",
      },
      { path: 'tests/test_new.py', before: null, after: 'def test_x():\n    assert 1\n' },
      { path: 'src/sum.ts', before: 'a - b', after: 'a + b' },
    ];
    expect(touchedTestFiles(files)).toEqual([
      { path: 'src/sum.test.ts', why: 'a Jest/Vitest/Mocha test file, changed' },
      { path: 'tests/test_new.py', why: 'a pytest/unittest test file, added' },
    ]);
  });
});
