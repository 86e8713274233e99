import { describe, expect, it } from 'vitest';
import { excerptOf, failingStep, texts } from './helpers.js';

/**
 * One small, realistic failure per tool, inside a failing Actions step with
 * 200 lines of noise before it: the excerpt keeps the lines that explain the
 * failure (names, messages, places) and leaves the noise out.
 */
const RUNNERS: { tool: string; output: string[]; kept: string[]; exitCode?: number }[] = [
  {
    tool: 'pytest',
    output: [
      'tests/test_io.py ..F                                                       [100%]',
      '=================================== FAILURES ===================================',
      '_________________________________ test_read __________________________________',
      '    def test_read():',
      '>       assert read("x") == 2',
      'E       assert 1 == 2',
      'tests/test_io.py:12: AssertionError',
      '=========================== short test summary info ============================',
      'FAILED tests/test_io.py::test_read - assert 1 == 2',
      '========================= 1 failed, 2 passed in 0.12s =========================',
    ],
    kept: [
      'FAILED tests/test_io.py::test_read - assert 1 == 2',
      'E       assert 1 == 2',
      'tests/test_io.py:12: AssertionError',
    ],
  },
  {
    tool: 'unittest',
    output: [
      'test_write (tests.test_core.CoreTest) ... FAIL',
      '======================================================================',
      'FAIL: test_write (tests.test_core.CoreTest)',
      '----------------------------------------------------------------------',
      'Traceback (most recent call last):',
      '  File "/home/runner/work/repo/repo/tests/test_core.py", line 21, in test_write',
      '    self.assertEqual(write(), 3)',
      'AssertionError: 2 != 3',
      '',
      'Ran 2 tests in 0.003s',
      'FAILED (failures=1)',
    ],
    kept: [
      'FAIL: test_write (tests.test_core.CoreTest)',
      '  File "/home/runner/work/repo/repo/tests/test_core.py", line 21, in test_write',
      'AssertionError: 2 != 3',
      'FAILED (failures=1)',
    ],
  },
  {
    tool: 'jest',
    output: [
      'FAIL src/sum.test.js',
      '  ● sum › adds two numbers',
      '',
      '    expect(received).toBe(expected) // Object.is equality',
      '',
      '    Expected: 4',
      '    Received: 5',
      '',
      '      at Object.<anonymous> (src/sum.test.js:4:21)',
      '',
      'Test Suites: 1 failed, 1 total',
      'Tests:       1 failed, 1 total',
    ],
    kept: [
      '  ● sum › adds two numbers',
      '    Expected: 4',
      '    Received: 5',
      '      at Object.<anonymous> (src/sum.test.js:4:21)',
      'Tests:       1 failed, 1 total',
    ],
  },
  {
    tool: 'vitest',
    output: [
      ' ❯ src/math.test.ts (4 tests | 1 failed) 5ms',
      '   × math > multiplies 3ms',
      ' FAIL  src/math.test.ts > math > multiplies',
      'AssertionError: expected 6 to be 7 // Object.is equality',
      ' ❯ src/math.test.ts:8:22',
      ' Test Files  1 failed (1)',
      '      Tests  1 failed | 3 passed (4)',
    ],
    kept: [
      ' FAIL  src/math.test.ts > math > multiplies',
      'AssertionError: expected 6 to be 7 // Object.is equality',
      ' ❯ src/math.test.ts:8:22',
    ],
  },
  {
    tool: 'mocha',
    output: [
      '  Calculator',
      '    ✓ adds',
      '    1) divides',
      '',
      '  1 passing (8ms)',
      '  1 failing',
      '',
      '  1) Calculator',
      '       divides:',
      '     AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:',
      '      at Context.<anonymous> (test/calc.test.js:9:12)',
      '      at processImmediate (node:internal/timers:476:21)',
    ],
    kept: [
      '  1) Calculator',
      '       divides:',
      '     AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:',
      '      at Context.<anonymous> (test/calc.test.js:9:12)',
    ],
  },
  {
    tool: 'go test',
    output: [
      '=== RUN   TestDiv',
      '    calc_test.go:15: Div(4, 2) = 3; want 2',
      '--- FAIL: TestDiv (0.00s)',
      'FAIL',
      'FAIL\texample.com/calc\t0.004s',
    ],
    kept: [
      '    calc_test.go:15: Div(4, 2) = 3; want 2',
      '--- FAIL: TestDiv (0.00s)',
      'FAIL\texample.com/calc\t0.004s',
    ],
  },
  {
    tool: 'cargo test',
    output: [
      'test tests::divides ... FAILED',
      'failures:',
      '---- tests::divides stdout ----',
      "thread 'tests::divides' panicked at src/lib.rs:12:9:",
      'assertion `left == right` failed',
      '  left: 3',
      ' right: 2',
      'test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
      'error: test failed, to rerun pass `--lib`',
    ],
    kept: [
      'test tests::divides ... FAILED',
      "thread 'tests::divides' panicked at src/lib.rs:12:9:",
      'assertion `left == right` failed',
      '  left: 3',
    ],
    exitCode: 101,
  },
  {
    tool: 'Maven with JUnit',
    output: [
      '[INFO] Running com.example.CalcTest',
      '[ERROR] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.05 s <<< FAILURE! - in com.example.CalcTest',
      '[ERROR] divides  Time elapsed: 0.01 s  <<< FAILURE!',
      'org.opentest4j.AssertionFailedError: expected: <2> but was: <3>',
      '\tat org.junit.jupiter.api.AssertionUtils.fail(AssertionUtils.java:55)',
      '\tat com.example.CalcTest.divides(CalcTest.java:14)',
      '[INFO] Results:',
      '[ERROR] Failures: ',
      '[ERROR]   CalcTest.divides:14 expected: <2> but was: <3>',
      '[ERROR] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0',
      '[INFO] BUILD FAILURE',
      '[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.0.0:test (default-test) on project calc: There are test failures.',
    ],
    kept: [
      '[ERROR] divides  Time elapsed: 0.01 s  <<< FAILURE!',
      'org.opentest4j.AssertionFailedError: expected: <2> but was: <3>',
      '\tat com.example.CalcTest.divides(CalcTest.java:14)',
      '[ERROR]   CalcTest.divides:14 expected: <2> but was: <3>',
    ],
  },
  {
    tool: 'Gradle',
    output: [
      'CalcTest > divides() FAILED',
      '    org.opentest4j.AssertionFailedError at CalcTest.java:14',
      '2 tests completed, 1 failed',
      '> Task :test FAILED',
      'FAILURE: Build failed with an exception.',
      '* What went wrong:',
      "Execution failed for task ':test'.",
      '> There were failing tests. See the report at: file:///home/runner/work/calc/build/reports/tests/test/index.html',
      'BUILD FAILED in 12s',
    ],
    kept: [
      'CalcTest > divides() FAILED',
      '    org.opentest4j.AssertionFailedError at CalcTest.java:14',
      "Execution failed for task ':test'.",
    ],
  },
  {
    tool: 'Ant with JUnit',
    output: [
      '    [junit] Running com.example.CalcTest',
      '    [junit] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.02 sec',
      '    [junit] Testcase: divides took 0.004 sec',
      '    [junit] \tFAILED',
      '    [junit] expected:<2> but was:<3>',
      '    [junit] junit.framework.AssertionFailedError: expected:<2> but was:<3>',
      '    [junit] Test com.example.CalcTest FAILED',
      'BUILD FAILED',
    ],
    kept: [
      '    [junit] Testcase: divides took 0.004 sec',
      '    [junit] junit.framework.AssertionFailedError: expected:<2> but was:<3>',
      '    [junit] Test com.example.CalcTest FAILED',
    ],
  },
  {
    tool: 'tsc',
    output: [
      "src/index.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.",
      "src/util.ts:3:10 - error TS2305: Module '\"./lib\"' has no exported member 'helper'.",
      'Found 2 errors in 2 files.',
    ],
    kept: [
      "src/index.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.",
      "src/util.ts:3:10 - error TS2305: Module '\"./lib\"' has no exported member 'helper'.",
    ],
    exitCode: 2,
  },
  {
    tool: 'eslint',
    output: [
      '/home/runner/work/app/app/src/index.js',
      "  12:5  error  'unused' is assigned a value but never used  no-unused-vars",
      '✖ 1 problem (1 error, 0 warnings)',
    ],
    kept: [
      '/home/runner/work/app/app/src/index.js',
      "  12:5  error  'unused' is assigned a value but never used  no-unused-vars",
      '✖ 1 problem (1 error, 0 warnings)',
    ],
  },
  {
    tool: 'npm install',
    output: [
      'npm ERR! code ERESOLVE',
      'npm ERR! ERESOLVE unable to resolve dependency tree',
      'npm ERR! Found: react@18.2.0',
      'npm ERR! Could not resolve dependency:',
      'npm ERR! peer react@"^17.0.0" from some-lib@2.0.0',
      'npm ERR! A complete log of this run can be found in:',
    ],
    kept: [
      'npm ERR! code ERESOLVE',
      'npm ERR! ERESOLVE unable to resolve dependency tree',
      'npm ERR! peer react@"^17.0.0" from some-lib@2.0.0',
    ],
  },
  {
    tool: 'pip install',
    output: [
      'Collecting numpy==9.9.9',
      'ERROR: Could not find a version that satisfies the requirement numpy==9.9.9 (from versions: 1.26.0, 1.26.1)',
      'ERROR: No matching distribution found for numpy==9.9.9',
    ],
    kept: [
      'ERROR: Could not find a version that satisfies the requirement numpy==9.9.9 (from versions: 1.26.0, 1.26.1)',
      'ERROR: No matching distribution found for numpy==9.9.9',
    ],
  },
  {
    tool: 'shell',
    output: ['/home/runner/work/_temp/4b1d.sh: line 2: pytset: command not found'],
    kept: ['/home/runner/work/_temp/4b1d.sh: line 2: pytset: command not found'],
    exitCode: 127,
  },
  {
    tool: 'Docker build',
    output: [
      '#8 [3/5] RUN npm ci',
      '#8 0.512 npm ERR! code ENOENT',
      '#8 0.514 npm ERR! path /app/package.json',
      '#8 ERROR: process "/bin/sh -c npm ci" did not complete successfully: exit code: 254',
      'Dockerfile:5',
      '   5 | >>> RUN npm ci',
      'ERROR: failed to solve: process "/bin/sh -c npm ci" did not complete successfully: exit code: 254',
    ],
    kept: [
      '#8 0.512 npm ERR! code ENOENT',
      '#8 ERROR: process "/bin/sh -c npm ci" did not complete successfully: exit code: 254',
      'ERROR: failed to solve: process "/bin/sh -c npm ci" did not complete successfully: exit code: 254',
    ],
  },
  {
    tool: 'go build',
    output: [
      '# example.com/app',
      './main.go:12:5: undefined: foo',
      './main.go:20:2: "os" imported and not used',
    ],
    kept: ['./main.go:12:5: undefined: foo', './main.go:20:2: "os" imported and not used'],
  },
  {
    tool: 'rustc',
    output: [
      'error[E0308]: mismatched types',
      ' --> src/main.rs:4:18',
      '  |',
      '4 |     let x: i32 = "a";',
      '  |            ---   ^^^ expected `i32`, found `&str`',
      'error: could not compile `app` (bin "app") due to 1 previous error',
    ],
    kept: [
      'error[E0308]: mismatched types',
      ' --> src/main.rs:4:18',
      '  |            ---   ^^^ expected `i32`, found `&str`',
    ],
    exitCode: 101,
  },
  {
    tool: 'Python script',
    output: [
      'Traceback (most recent call last):',
      '  File "/usr/lib/python3.11/runpy.py", line 198, in _run_module_as_main',
      '  File "/home/runner/work/app/app/scripts/migrate.py", line 33, in main',
      '    conn = connect(os.environ["DATABASE_URL"])',
      '  File "/usr/lib/python3.11/os.py", line 679, in __getitem__',
      '    raise KeyError(key) from None',
      "KeyError: 'DATABASE_URL'",
    ],
    kept: [
      '  File "/home/runner/work/app/app/scripts/migrate.py", line 33, in main',
      '    conn = connect(os.environ["DATABASE_URL"])',
      "KeyError: 'DATABASE_URL'",
    ],
  },
];

describe('the excerpt of each runner’s failure', () => {
  it.each(RUNNERS)('keeps what explains a $tool failure', async ({ output, kept, exitCode }) => {
    const excerpt = await excerptOf(failingStep('make check', output, exitCode ?? 1));
    for (const line of kept) expect(texts(excerpt)).toContain(line);
    expect(excerpt.failingStep).toBe('Run make check');
    expect(excerpt.exitCode).toBe(exitCode ?? 1);
    // Two lines of the build's noise may stand as context before the first failure line.
    expect(texts(excerpt).filter((text) => text.startsWith('progress line')).length).toBeLessThanOrEqual(2);
    expect(texts(excerpt).some((text) => text.startsWith('remote: Counting'))).toBe(false);
    expect(excerpt.lines.length).toBeLessThanOrEqual(output.length + 8);
  });
});
