import { describe, expect, it } from 'vitest';
import { isKnownNoise } from '../../src/ci-logs/noise-lines.js';
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
  {
    tool: 'gcc under make',
    output: [
      'cc -Wall -O2   -c -o src/buffer.o src/buffer.c',
      "src/buffer.c: In function 'buffer_append':",
      "src/buffer.c:9:11: error: 'struct buffer' has no member named 'size'",
      '    9 |   return b->size;',
      '      |           ^~',
      'src/buffer.c:10:1: warning: control reaches end of non-void function [-Wreturn-type]',
      'make: *** [<builtin>: src/buffer.o] Error 1',
    ],
    kept: [
      "src/buffer.c:9:11: error: 'struct buffer' has no member named 'size'",
      '    9 |   return b->size;',
      'make: *** [<builtin>: src/buffer.o] Error 1',
    ],
    exitCode: 2,
  },
  {
    tool: 'clang',
    output: [
      "src/parse.cpp:41:12: error: no viable conversion from 'std::string' to 'int'",
      '   41 |   int n = name;',
      '      |       ^   ~~~~',
      '1 error generated.',
    ],
    kept: [
      "src/parse.cpp:41:12: error: no viable conversion from 'std::string' to 'int'",
      '1 error generated.',
    ],
  },
  {
    tool: 'javac',
    output: [
      "src/com/example/Inventory.java:6: error: ';' expected",
      '  public int count() { return items.size() }',
      '                                          ^',
      '1 error',
    ],
    kept: ["src/com/example/Inventory.java:6: error: ';' expected", '1 error'],
  },
  {
    tool: 'Java exception',
    output: [
      'Exception in thread "main" java.lang.IllegalStateException: PORT is not a number',
      '\tat com.example.App.port(App.java:8)',
      '\tat com.example.App.main(App.java:13)',
      'Caused by: java.lang.NumberFormatException: For input string: "80a"',
      '\tat java.base/java.lang.NumberFormatException.forInputString(NumberFormatException.java:67)',
      '\tat com.example.App.port(App.java:6)',
      '\t... 1 more',
    ],
    kept: [
      'Exception in thread "main" java.lang.IllegalStateException: PORT is not a number',
      '\tat com.example.App.port(App.java:8)',
      'Caused by: java.lang.NumberFormatException: For input string: "80a"',
    ],
  },
  {
    tool: 'Go panic',
    output: [
      'panic: runtime error: invalid memory address or nil pointer dereference',
      '[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x482d0f]',
      '',
      'goroutine 1 [running]:',
      'main.run(...)',
      '\t/home/runner/work/app/app/main.go:7',
      'main.main()',
      '\t/home/runner/work/app/app/main.go:13 +0x14f',
      'exit status 2',
    ],
    kept: [
      'panic: runtime error: invalid memory address or nil pointer dereference',
      '[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x482d0f]',
      '\t/home/runner/work/app/app/main.go:7',
    ],
  },
  {
    tool: 'RSpec',
    output: [
      'Failures:',
      '',
      '  1) Cart#total sums the prices',
      '     Failure/Error: expect(cart.total).to eq(30)',
      '',
      '       expected: 30',
      '            got: 25',
      '',
      "     # ./spec/cart_spec.rb:12:in `block (3 levels) in <top (required)>'",
      '',
      'Finished in 0.0213 seconds (files took 0.1 seconds to load)',
      '14 examples, 1 failure',
      '',
      'Failed examples:',
      '',
      'rspec ./spec/cart_spec.rb:10 # Cart#total sums the prices',
    ],
    kept: [
      '  1) Cart#total sums the prices',
      '     Failure/Error: expect(cart.total).to eq(30)',
      '14 examples, 1 failure',
      'rspec ./spec/cart_spec.rb:10 # Cart#total sums the prices',
    ],
  },
  {
    tool: 'PHPUnit',
    output: [
      'PHPUnit 10.5.0 by Sebastian Bergmann and contributors.',
      '..F.                                                                4 / 4 (100%)',
      'There was 1 failure:',
      '',
      '1) Tests\\CartTest::testTotal',
      'Failed asserting that 25 matches expected 30.',
      '',
      '/app/tests/CartTest.php:14',
      '',
      'FAILURES!',
      'Tests: 4, Assertions: 4, Failures: 1.',
    ],
    kept: [
      '1) Tests\\CartTest::testTotal',
      'Failed asserting that 25 matches expected 30.',
      'Tests: 4, Assertions: 4, Failures: 1.',
    ],
  },
  {
    tool: 'Maven dependency resolution',
    output: [
      '[WARNING] The POM for junit:junit:jar:4.99.0 is missing, no dependency information available',
      '[INFO] BUILD FAILURE',
      '[ERROR] Failed to execute goal on project calc: Could not resolve dependencies for project com.example:calc:jar:1.0: junit:junit:jar:4.99.0 was not found in https://repo.maven.apache.org/maven2',
      '[ERROR] -> [Help 1]',
    ],
    kept: [
      '[ERROR] Failed to execute goal on project calc: Could not resolve dependencies for project com.example:calc:jar:1.0: junit:junit:jar:4.99.0 was not found in https://repo.maven.apache.org/maven2',
    ],
  },
  {
    tool: 'pip’s resolver',
    output: [
      'Collecting requests==2.31.0',
      'INFO: pip is looking at multiple versions of requests to determine which version is compatible with other requirements.',
      'ERROR: Cannot install -r requirements.txt (line 1) and urllib3==1.0 because these package versions have conflicting dependencies.',
      '',
      'The conflict is caused by:',
      '    The user requested urllib3==1.0',
      '    requests 2.31.0 depends on urllib3<3 and >=1.21.1',
      '',
      'To fix this you could try to:',
      "1. loosen the range of package versions you've specified",
      '2. remove package versions to allow pip to attempt to solve the dependency conflict',
      '',
      'ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/dependency-resolution/#dealing-with-dependency-conflicts',
    ],
    kept: [
      'ERROR: Cannot install -r requirements.txt (line 1) and urllib3==1.0 because these package versions have conflicting dependencies.',
      '    The user requested urllib3==1.0',
      '    requests 2.31.0 depends on urllib3<3 and >=1.21.1',
      'ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/dependency-resolution/#dealing-with-dependency-conflicts',
    ],
  },
  {
    tool: 'an OOM kill',
    output: [
      'loading dataset',
      'allocated chunk 15',
      '/home/runner/work/_temp/1a.sh: line 3:  2412 Killed                  python train.py',
    ],
    kept: ['/home/runner/work/_temp/1a.sh: line 3:  2412 Killed                  python train.py'],
    exitCode: 137,
  },
  {
    tool: 'a segmentation fault',
    output: ['step 19 done', 'bash: line 1: 10884 Segmentation fault      (core dumped) ./crash'],
    kept: ['bash: line 1: 10884 Segmentation fault      (core dumped) ./crash'],
    exitCode: 139,
  },
  {
    tool: 'set -e',
    output: ['copy asset 20', "cp: cannot stat 'build/app.tar.gz': No such file or directory"],
    kept: ["cp: cannot stat 'build/app.tar.gz': No such file or directory"],
  },
];

describe('the excerpt of each runner’s failure', () => {
  it.each(RUNNERS)('keeps what explains a $tool failure', async ({ output, kept, exitCode }) => {
    const excerpt = await excerptOf(failingStep('make check', output, exitCode ?? 1));
    for (const line of kept) expect(texts(excerpt)).toContain(line);
    expect(excerpt.failingStep).toBe('Run make check');
    expect(excerpt.exitCode).toBe(exitCode ?? 1);
    // Recall first: the whole of the runner's output is kept, the budget filled from the failing step's
    // end backwards, and nothing from the step that passed before it; known noise (a passing test, a
    // test's `=== RUN`) only where the budget has room once the rest is in.
    for (const line of output)
      if (line.trim() !== '' && !isKnownNoise(line)) expect(texts(excerpt)).toContain(line);
    expect(texts(excerpt).some((text) => text.startsWith('remote: Counting'))).toBe(false);
    expect(excerpt.lines.length).toBeLessThanOrEqual(150);
    // Evidence first: with a budget only a little larger than what explains the failure, that is what stays.
    const tight = await excerptOf(failingStep('make check', output, exitCode ?? 1), kept.length + 10);
    for (const line of kept) expect(texts(tight)).toContain(line);
  });
});
