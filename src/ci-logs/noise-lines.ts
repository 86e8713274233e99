/**
 * Known noise: lines that never explain a failure, whatever the tool, and are the first to go
 * when an excerpt has to choose. Read only for the lines an excerpt may show (the failing step's
 * end), never on the per-line path, so plain patterns are cheap enough.
 *
 * - coverage tables (istanbul/nyc/jest/vitest rows and rules, `coverage: 81.2% of statements`);
 * - passing tests (`✓ name`, `ok 3 name`, `--- PASS:`, `=== RUN`, `name PASSED`, `test x ... ok`,
 *   JUnit's `Tests run: 8, Failures: 0, Errors: 0`, go's `ok  	pkg 0.01s`);
 * - downloads and progress (`Downloading from central:`, `Progress (1):`, cargo's `Compiling x`,
 *   `Downloaded 12 crates`, a bare percentage);
 * - linters' warnings (`12:5  warning  … rule`) — a lint step that failed says so with its errors.
 *
 * A failure line must never match: every pattern names a passing or neutral state outright.
 */
const NOISE = [
  // Coverage tables: a row with several numeric cells, a rule of dashes and pipes, the header.
  /(?:\|\s*[\d.]+\s*){3,}\|/,
  /^\s*-{3,}(?:\|-{3,})+\|?\s*$/,
  /^\s*(?:File|All files)\s+\|/,
  /^\s*(?:%\s*)?Coverage report from\b/,
  /^coverage: [\d.]+% of statements/,
  /^ok {2}\t?\S+\s+(?:\(cached\)|[\d.]+s)/,
  // Passing tests.
  /^\s*(?:✓|✔|√)\s/,
  /^ok \d+\b/,
  /^\s*--- PASS: /,
  /^=== (?:RUN|PAUSE|CONT|NAME) /,
  /\sPASSED(?:\s+\[\s*\d+%\])?$/,
  /^test \S+ \.\.\. ok$/,
  /\s\.\.\. ok$/,
  /\bTests run: \d+, Failures: 0, Errors: 0\b/,
  // Downloads and progress.
  /^(?:\[INFO\] )?Download(?:ing|ed) from \S+: /,
  /^(?:\[INFO\] )?Progress \(\d+\): /,
  /^\s*(?:Compiling|Downloaded|Downloading|Fresh|Checking) \S+ v\d/,
  /^\s*\d{1,3}%\s*$/,
  // A linter's warnings (eslint's stylish format), and its total when none was an error.
  /^\s*\d+:\d+\s+warning\s/,
  /^✖ \d+ problems? \(0 errors?,/,
];

export function isKnownNoise(text: string): boolean {
  for (const pattern of NOISE) if (pattern.test(text)) return true;
  return false;
}
