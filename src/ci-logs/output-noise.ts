import { latin1 } from './log-lines.js';

/**
 * Lines of a command's output that never explain a failure, whatever failed: the first to go
 * when the output must be cut. Passing tests (and go test's passing packages, `ok  \tpkg\t0.01s`;
 * pytest's verdicts are read by the line classes, line-kinds.ts), coverage tables (nyc/istanbul, coverage.py,
 * go's per-package coverage), progress bars, downloads and installs, and a lint run's
 * summary when it found no error. Lint and compiler warnings are the line classes' `warning`
 * kind (see line-kinds.ts). Lines are latin1, as the splitter delivers them (✔ is its UTF-8 bytes).
 */
const PASS_MARKS = ['✓', '✔', '√'].map(latin1).join('|');
const PASSING_TEST = new RegExp(
  `^(?:ok \\d+\\b|ok {2}\\t\\S|\\? {3}\\t\\S+\\t\\[no test files\\]|(?:${PASS_MARKS})\\s|PASS\\s+\\S|--- PASS: |=== (?:RUN|PAUSE|CONT)\\s|PASSED\\s|\\[\\s*(?:OK|PASSED)\\s*\\]\\s)` +
    '|(?:\\s\\.\\.\\.\\s+ok|\\s+PASSED|\\s\\.\\.\\.\\s+passed)$',
);
/** `----|----|`, `File | % Stmts |`, `All files |  98.89 |`, `Name  Stmts  Miss  Cover`, `TOTAL  90  1  99%`. */
const COVERAGE =
  /^[-=]+(?:\|[-=]+)+\|?$|^[^|]*\|\s*(?:% ?\w+|[\d.]+)\s*\|(?:[^|]*\|){2,}|^(?:Name|TOTAL)\s+(?:Stmts|\d+)\s+(?:Miss|\d+)|^(?:Statements|Branches|Functions|Lines)\s+:\s+[\d.]+%|^=+ Coverage summary =+$|^coverage: [\d.]+% of statements/;
// `[=====>    ] 45%`, `45% |████`, `Progress: 10/20`, pip's and cargo's bars.
const PROGRESS = new RegExp(
  `^\\S*\\s*\\[[#=>\\-. ]{8,}\\]|\\d+%\\s*\\|(?:${latin1('█')}|#)|^Progress(?: \\(\\d+\\))?: |^\\s*\\d+(?:\\.\\d+)?%\\s*$`,
);
const DOWNLOAD =
  /^(?:Downloading|Downloaded|Download(?:ed)? from|Fetching|Fetched|Collecting|Resolving|Unpacking|Installing collected|Successfully installed|Requirement already satisfied|Using cached|Get:\d+|Hit:\d+|Ign:\d+|Receiving objects|Resolving deltas|Compiling \S+ v\d|Updating crates\.io|Locking \d+ packages|npm (?:WARN|warn)|added \d+ packages?|up to date, audited|found 0 vulnerabilities|\d+ packages? (?:are|is) looking for funding|run `npm fund`)/;
/** eslint's `✖ 120 problems (0 errors, 120 warnings)` and `0 errors and 40 warnings potentially fixable`. */
const LINT_PASSED = /\(0 errors?, \d+ warnings?\)|^0 errors? and \d+ warnings? potentially fixable/;

/** Whether a line (stripped, its indentation and tag removed) is known noise. */
export function isNoise(core: string): boolean {
  return (
    PASSING_TEST.test(core) ||
    COVERAGE.test(core) ||
    PROGRESS.test(core) ||
    DOWNLOAD.test(core) ||
    LINT_PASSED.test(core)
  );
}
