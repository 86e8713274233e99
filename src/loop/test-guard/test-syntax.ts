import { goTableCases, type TableCase } from './go-table-cases.js';

/**
 * How each common ecosystem writes its tests, as line patterns: what a test
 * file is called, what an assertion, a skip or focus marker and a test
 * definition look like. Line patterns, not parsers: they cover the forms the
 * frameworks document, and a miss costs a finding, never a wrong edit.
 */
export interface TestSyntax {
  /** Shown in reasons: "a Go test file". */
  name: string;
  /** Whether a path is a test file of this ecosystem by its name and folder. */
  path: RegExp;
  assertion: RegExp;
  skip: RegExp;
  only: RegExp | null;
  /** A test's definition; the first capture group, when present, is the test's name. */
  definition: RegExp;
  /** An attribute or annotation that makes the next function definition a test. */
  testAttribute: RegExp | null;
  /** A function definition, named by its first capture group (read after a test attribute). */
  functionName: RegExp | null;
  /** The cases of the file's test tables, where the ecosystem writes tests as tables (Go). */
  tableCases: ((text: string) => TableCase[]) | null;
}

const jsName = /\b(?:it|test|specify)(?:\.\w+)*\s*\(\s*(['"`])(.*?)\1/;

const TEST_SYNTAXES: readonly TestSyntax[] = [
  {
    name: 'Jest/Vitest/Mocha',
    path: /(\.(test|spec)\.[cm]?[jt]sx?$)|((^|\/)__tests__\/.*\.[cm]?[jt]sx?$)/,
    assertion:
      /\b(expect|assert)\s*[.(]|\bt\.(is|not|deepEqual|true|false|throws|equal|ok|same)\b|\.should\b/,
    skip: /\b(it|test|describe|context|suite|specify)\.(skip|todo)\b|\b(xit|xdescribe|xtest|xcontext)\s*\(/,
    only: /\b(it|test|describe|context|suite|specify)\.only\b|\b(fit|fdescribe)\s*\(/,
    definition: new RegExp(`${jsName.source}|\\b(?:xit|fit|xtest)\\s*\\(\\s*(['"\`])(.*?)\\3`),
    testAttribute: null,
    functionName: null,
    tableCases: null,
  },
  {
    name: 'pytest/unittest',
    path: /((^|\/)test_[^/]*\.py$)|(_test\.py$)|((^|\/)tests?\/.*\.py$)|((^|\/)conftest\.py$)/,
    assertion: /^\s*assert\b|\.assert\w*\s*\(|\bpytest\.(raises|warns|approx)\b|\bassert_\w+\s*\(/,
    skip: /@pytest\.mark\.(skip|skipif|xfail)\b|\bpytest\.(skip|xfail)\s*\(|@unittest\.(skip|skipIf|skipUnless|expectedFailure)\b|\.skipTest\s*\(|\bunittest\.SkipTest\b/,
    only: null,
    definition: /^\s*(?:async\s+)?def\s+(test\w*)\s*\(/,
    testAttribute: null,
    functionName: null,
    tableCases: null,
  },
  {
    name: 'Go',
    path: /_test\.go$/,
    assertion:
      /\bt\.(Error|Errorf|Fatal|Fatalf|Fail|FailNow)\s*\(|\b(assert|require)\.\w+\s*\(|^\s*if\b.*(!=|==|!\s*\w+\.(DeepEqual|Equal)\s*\()/,
    skip: /\b[tb]\.(Skip|Skipf|SkipNow)\s*\(/,
    only: null,
    definition: /^\s*func\s+((?:Test|Benchmark|Example|Fuzz)\w*)\s*\(/,
    testAttribute: null,
    functionName: null,
    tableCases: goTableCases,
  },
  {
    name: 'JUnit',
    path: /((^|\/)src\/test\/(java|kotlin|scala)\/.*)|((Test|Tests|IT)\.(java|kt)$)/,
    assertion: /\bassert\w*\s*\(|\bAssertions\.\w+|\bverify\s*\(|\bassertThat\b/,
    skip: /@(Disabled|Ignore)\b|\bAssume\.\w+|\bassume(True|False|That)\s*\(/,
    only: null,
    definition: /\bvoid\s+(test\w*)\s*\(/,
    testAttribute: /@(Test|ParameterizedTest|RepeatedTest|TestFactory)\b/,
    functionName: /\b(?:void|fun)\s+(\w+)\s*\(/,
    tableCases: null,
  },
  {
    name: 'Rust',
    path: /(^|\/)tests\/.*\.rs$/,
    assertion:
      /\b(assert|assert_eq|assert_ne|debug_assert|debug_assert_eq|debug_assert_ne|assert_matches)!\s*[([]/,
    skip: /#\[\s*ignore\b/,
    only: null,
    definition: /^$/,
    testAttribute: /#\[\s*(tokio::)?test\b/,
    functionName: /\bfn\s+(\w+)\s*[<(]/,
    tableCases: null,
  },
  {
    name: 'RSpec/Minitest',
    path: /((^|\/)spec\/.*_spec\.rb$)|(_spec\.rb$)|((^|\/)test\/.*_test\.rb$)/,
    assertion:
      /\bexpect\s*[({]|\.(to|not_to|to_not)\b|\bassert\w*\b|\brefute\w*\b|\.should\b|\bis_expected\b/,
    skip: /^\s*(xit|xdescribe|xcontext|xspecify|xexample|pending|skip)\b|\bskip:\s|:skip\b/,
    only: /^\s*(fit|fdescribe|fcontext|focus)\b|\bfocus:\s*true\b|:focus\b/,
    definition: /^\s*(?:it|specify|example|scenario|xit|fit)\s*\(?\s*(['"])(.*?)\1|^\s*def\s+(test_\w*)/,
    testAttribute: null,
    functionName: null,
    tableCases: null,
  },
];

/** Rust keeps unit tests beside the code, in a `#[cfg(test)]` module: only that part is a test. */
const RUST_TEST_MODULE = /#\[\s*cfg\(\s*test\s*\)\s*\]/;

const RUST = TEST_SYNTAXES.find((syntax) => syntax.name === 'Rust') as TestSyntax;

/** The ecosystem whose naming makes `path` a test file, given its text (Rust's test modules live in code). */
export function testSyntaxFor(path: string, text: string | null): TestSyntax | null {
  const byPath = TEST_SYNTAXES.find((syntax) => syntax.path.test(path));
  if (byPath) return byPath;
  if (path.endsWith('.rs') && text !== null && RUST_TEST_MODULE.test(text)) return RUST;
  return null;
}

/** The part of a file that holds tests: all of it, or from a Rust source's `#[cfg(test)]` on. */
export function testPart(path: string, syntax: TestSyntax, text: string): string {
  if (syntax !== RUST || syntax.path.test(path)) return text;
  const start = text.search(RUST_TEST_MODULE);
  return start === -1 ? '' : text.slice(start);
}

/** The names of the tests a text defines, repeats kept (parametrised or same-named tests count twice). */
export function testNames(syntax: TestSyntax, text: string): string[] {
  const names: string[] = [];
  let attributed = false;
  for (const line of text.split(/\r?\n/)) {
    if (syntax.testAttribute?.test(line)) attributed = true;
    const fn = syntax.functionName ? syntax.functionName.exec(line) : null;
    if (attributed && fn) {
      names.push(fn[1] as string);
      attributed = false;
      continue;
    }
    const definition = syntax.definition.exec(line);
    if (definition && line.trim() !== '')
      names.push(definition.slice(1).find((part) => part && part.length > 1) ?? line.trim());
  }
  return names;
}
