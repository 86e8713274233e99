/**
 * The failure lines of each tool's recorded output, chosen by hand: the failing tests' names and
 * verdicts, each failure's block (message, expected and received, quoted source, stack frames),
 * compiler and linter errors with their quoted source, the runner's failure summary and the build
 * tool's verdict. Warnings, coverage tables, downloads, progress and passing tests are not failure
 * lines. Each rule names fragments of the tool's own lines, so the labels follow a re-recording:
 *
 * - a string or pattern labels every line that holds it;
 * - `{ from, to }` labels the lines from the first holding `from` through the next holding `to`,
 *   blank lines and bare separators (`-----`, `⎯⎯⎯ [1/3] ⎯⎯⎯`) left out.
 *
 * Every rule must match (shape.ts fails otherwise).
 */
type Fragment = string | RegExp;
export type Rule = Fragment | { from: Fragment; to: Fragment };

export const LABELS: Record<string, Rule[]> = {
  jest: [
    'FAIL test/cart.test.js',
    '✕ formats cents with two decimals',
    '✕ never discounts below zero',
    '✕ finds no missing item',
    { from: '● prices › formats cents with two decimals', to: 'at Object.toBe (test/cart.test.js' },
    {
      from: '● prices › never discounts below zero',
      to: 'at Object.toBeGreaterThanOrEqual (test/cart.test.js',
    },
    { from: '● prices › finds no missing item', to: 'at Object.findItem (test/cart.test.js' },
    'Test Suites: 1 failed',
    'Tests:       3 failed',
  ],
  vitest: [
    /× test\/cart\.test\.mjs > prices > /,
    "→ expected '$1.5' to be '$1.50'",
    '→ expected -500 to be greater than or equal to 0',
    "→ Cannot read properties of undefined (reading 'name')",
    'Failed Tests 3',
    { from: 'FAIL  test/cart.test.mjs > prices > formats cents', to: '[1/3]' },
    { from: 'FAIL  test/cart.test.mjs > prices > never discounts', to: '[2/3]' },
    { from: 'FAIL  test/cart.test.mjs > prices > finds no missing', to: '[3/3]' },
    /Test Files\s+1 failed/,
    /Tests\s+3 failed/,
  ],
  mocha: [
    '1) formats cents with two decimals',
    '2) never discounts below zero',
    '3) finds no missing item',
    '3 failing',
    { from: /^ {2}1\) prices$/, to: 'at process.processImmediate' },
    { from: /^ {2}2\) prices$/, to: 'at process.processImmediate' },
    { from: /^ {2}3\) prices$/, to: 'at process.processImmediate' },
  ],
  tape: [
    { from: '# formats cents with two decimals', to: /^ {2}\.\.\.$/ },
    { from: '# never discounts below zero', to: /^ {2}\.\.\.$/ },
    { from: '# finds no missing item', to: 'at process.processImmediate' },
  ],
  eslint: [
    '/home/runner/work/app/app/src/checkout.js',
    "error    'reject' is not defined",
    "error    'charge' is not defined",
    /✖ \d+ problems \(2 errors/,
  ],
  tsc: [{ from: 'src/cart.ts(13,3): error TS2322', to: 'src/checkout.ts(14,26): error TS2554' }],
  pytest: [
    'tests/test_shop.py::test_format_price FAILED',
    'tests/test_shop.py::test_discount_never_negative FAILED',
    'tests/test_shop.py::test_find_missing_item FAILED',
    '= FAILURES =',
    { from: '_ test_format_price _', to: 'tests/test_shop.py:19: AssertionError' },
    { from: '_ test_discount_never_negative _', to: 'tests/test_shop.py:24: AssertionError' },
    { from: '_ test_find_missing_item _', to: 'shop/__init__.py:24: StopIteration' },
    { from: 'short test summary info', to: 'FAILED tests/test_shop.py::test_find_missing_item' },
    / 3 failed, \d+ passed/,
  ],
  unittest: [
    / \.\.\. (?:FAIL|ERROR)$/,
    { from: 'ERROR: test_find_missing_item', to: /^StopIteration$/ },
    { from: 'FAIL: test_discount_never_negative', to: 'AssertionError: -500' },
    { from: 'FAIL: test_format_price', to: '?     +' },
    'FAILED (failures=2, errors=1)',
  ],
  go: [
    'cart_test.go:20: Discount(500, TENOFF) = -500',
    '--- FAIL: TestDiscountNeverNegative',
    '--- FAIL: TestFindMissing',
    { from: 'panic: runtime error: invalid memory address', to: 'FAIL\texample.com/shop/cart' },
    'format_test.go:9: Price(100)',
    'format_test.go:9: Price(150)',
    '--- FAIL: TestPrice',
    'FAIL\texample.com/shop/format',
    /^FAIL$/,
  ],
  // The panic and the panicking goroutine's stack; the other goroutines' stacks are the program's state, not the failure.
  'go-panic': [
    { from: 'panic: runtime error: index out of range', to: 'orders/pool.go:34 +0x1cf' },
    'FAIL\texample.com/shop/orders',
    /^FAIL$/,
  ],
  // The timeout, the alarm goroutine that panicked, and the stuck test's goroutine; the workers' are the program's state.
  'go-timeout': [
    { from: 'panic: test timed out after 3s', to: 'time/sleep.go:176' },
    { from: /^goroutine \d+ \[semacquire\]:$/, to: 'testing/testing.go:1493 +0x35f' },
    'FAIL\texample.com/shop/batch',
    /^FAIL$/,
  ],
  cargo: [
    / \.\.\. FAILED$/,
    { from: '---- finds_no_missing_item stdout ----', to: 'note: Some details are omitted' },
    { from: '---- formats_cents_with_two_decimals stdout ----', to: 'note: Some details are omitted' },
    { from: '---- never_discounts_below_zero stdout ----', to: 'note: Some details are omitted' },
    /^ {4}(?:finds_no_missing_item|formats_cents_with_two_decimals|never_discounts_below_zero)$/,
    'test result: FAILED',
    'error: test failed, to rerun pass',
  ],
  rspec: [
    '(FAILED - ',
    /^Failures:$/,
    { from: '1) Shop.format_price', to: '# ./spec/shop_spec.rb:14' },
    { from: '2) Shop.discount', to: '# ./spec/shop_spec.rb:20' },
    { from: '3) Shop.find_item', to: '# ./spec/shop_spec.rb:26' },
    /\d+ examples, 3 failures/,
    'Failed examples:',
    'rspec ./spec/shop_spec.rb:',
  ],
  gcc: [{ from: 'src/checkout.c: In function', to: /^\s+\|\s+~+\s*$/ }],
  make: ['FAIL tests/test_shop.c:18', 'FAIL tests/test_shop.c:19', '2 checks failed', 'make: *** [Makefile'],
  maven: [
    '[ERROR] Tests run: 3, Failures: 2, Errors: 1',
    { from: 'findsNoMissingItem(shop.CartTest)  Time elapsed', to: 'at shop.CartTest.findsNoMissingItem' },
    { from: 'neverDiscountsBelowZero(shop.CartTest)  Time elapsed', to: 'at shop.CartTest.neverDiscounts' },
    { from: 'formatsCentsWithTwoDecimals(shop.CartTest)  Time elapsed', to: 'at shop.CartTest.formatsCents' },
    { from: '[ERROR] Failures: ', to: 'CartTest.findsNoMissingItem:24' },
    /^\[ERROR\] Tests run: \d+, Failures: 2, Errors: 1, Skipped: 0$/,
    'BUILD FAILURE',
    '[ERROR] Failed to execute goal',
  ],
  gradle: [
    { from: 'shop.CartTest > findsNoMissingItem FAILED', to: 'at shop.CartTest.findsNoMissingItem' },
    { from: 'shop.CartTest > neverDiscountsBelowZero FAILED', to: 'at shop.CartTest.neverDiscounts' },
    { from: 'shop.CartTest > formatsCentsWithTwoDecimals FAILED', to: 'at shop.CartTest.formatsCents' },
    /\d+ tests completed, 3 failed/,
    ':test FAILED',
    'FAILURE: Build failed with an exception.',
    '* What went wrong:',
    "Execution failed for task ':test'.",
    '> There were failing tests.',
    'BUILD FAILED in',
  ],
};
