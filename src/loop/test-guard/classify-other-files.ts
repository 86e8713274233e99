import { matchesAny } from '../../util/glob.js';
import { type EditedFile, lineChanges, quote, type TestFinding, type TestGuardContext } from './findings.js';
import { testRuleLines } from './makefile-rules.js';

/**
 * Edits that weaken a check without touching a test's code: the expected
 * output it compares against, the CI workflows, the command that runs the
 * tests, a coverage threshold, or a path the repository protects.
 */

const EXPECTED_OUTPUT =
  /(^|\/)(__snapshots__|testdata|fixtures|__fixtures__|golden|goldens|expected|snapshots)\/|\.(snap|golden|expected)$/;

const CI_FILES =
  /^(\.github\/workflows\/[^/]+\.ya?ml|\.gitlab-ci\.yml|\.circleci\/config\.yml|azure-pipelines\.yml|\.travis\.yml|Jenkinsfile)$/;

/** Files that say how the tests run: a change here changes the command that judges the fix. */
const RUNNER_CONFIG =
  /(^|\/)(pytest\.ini|tox\.ini|noxfile\.py|jest\.config\.[cm]?[jt]s(on)?|vitest\.config\.[cm]?[jt]s|vitest\.workspace\.[cm]?[jt]s|\.mocharc(\.[a-z]+)?|karma\.conf\.js|phpunit\.xml(\.dist)?|\.rspec|Rakefile|\.coveragerc|\.nycrc(\.[a-z]+)?|codecov\.ya?ml|\.c8rc(\.json)?)$/;

/** Shared project files where only some lines are about tests. */
const SHARED_CONFIG =
  /(^|\/)(setup\.cfg|pyproject\.toml|build\.gradle(\.kts)?|pom\.xml|Cargo\.toml|Makefile|GNUmakefile)$/;

const COVERAGE_LINE =
  /fail[_-]?under|cov-fail-under|coverageThreshold|thresholds?\b|check-coverage|min(imum)?[_-]?coverage|jacocoTestCoverageVerification|minimum\s*=|"(lines|branches|functions|statements)"\s*:/i;

const TEST_COMMAND_LINE =
  /addopts|testpaths|python_files|norecursedirs|\[tool[.:]pytest|\btest\b|^\s*test:|\bpytest\b|surefire|\bskipTests\b/i;

export function classifyOtherFile(file: EditedFile, context: TestGuardContext): TestFinding[] {
  const { path, before, after } = file;
  if (matchesAny(path, context.protectedPaths)) {
    return [
      {
        path,
        kind: 'protected-path-edited',
        reason: `${path}: the repository's protected_paths cover this file.`,
      },
    ];
  }
  if (CI_FILES.test(path)) {
    return [
      {
        path,
        kind: 'ci-workflow-edited',
        reason: `${path}: a CI workflow was ${before === null ? 'added' : 'changed'}.`,
      },
    ];
  }
  if (before === null) return [];
  if (EXPECTED_OUTPUT.test(path)) {
    const what = after === null || after.trim() === '' ? 'deleted or emptied' : 'changed';
    return [
      {
        path,
        kind: 'expected-output-edited',
        reason: `${path}: expected output (a fixture or snapshot) was ${what}.`,
      },
    ];
  }
  return commandFindings(path, before, after ?? '', context.command);
}

function commandFindings(path: string, before: string, after: string, command: string): TestFinding[] {
  const changed = [...lineChanges(before, after).removed, ...lineChanges(before, after).added];
  const coverage = changed.find((line) => COVERAGE_LINE.test(line));
  if (coverage && (RUNNER_CONFIG.test(path) || SHARED_CONFIG.test(path) || path.endsWith('package.json'))) {
    return [
      {
        path,
        kind: 'coverage-threshold-edited',
        reason: `${path}: a coverage threshold changed (${quote(coverage)}).`,
      },
    ];
  }
  if (namedByCommand(path, before, after, command) || RUNNER_CONFIG.test(path)) {
    return [
      {
        path,
        kind: 'command-edited',
        reason: `${path}: this file decides what the command \`${command}\` runs.`,
      },
    ];
  }
  if (path.endsWith('package.json')) return scriptFindings(path, before, after, command);
  const testLine = changed.find((line) => TEST_COMMAND_LINE.test(line));
  if (SHARED_CONFIG.test(path) && testLine) {
    return [
      {
        path,
        kind: 'command-edited',
        reason: `${path}: how the tests run was changed (${quote(testLine)}).`,
      },
    ];
  }
  return [];
}

/**
 * A Makefile decides what `make ...` runs, but only in the rules of the targets that run the tests; a
 * script the command names is not taken for a test wrapper: the App debugs failing scripts, so
 * `sh check.sh` usually names the very code being fixed.
 */
function namedByCommand(path: string, before: string, after: string, command: string): boolean {
  const base = path.split('/').at(-1) ?? path;
  if (!/^(GNUmakefile|[Mm]akefile)$/.test(base) || !commandWords(command).includes('make')) return false;
  const { removed, added } = lineChanges(before, after);
  const rulesBefore = testRuleLines(before, command);
  const rulesAfter = testRuleLines(after, command);
  return removed.some((line) => rulesBefore.has(line)) || added.some((line) => rulesAfter.has(line));
}

function commandWords(command: string): string[] {
  return command
    .split(/[\s;&|()]+/)
    .map((word) => word.replace(/^\.\//, '').replace(/^['"]|['"]$/g, ''))
    .filter((word) => word !== '');
}

/** package.json: the `test` script, or any script the command runs by name. */
function scriptFindings(path: string, before: string, after: string, command: string): TestFinding[] {
  const old = scriptsOf(before);
  const now = scriptsOf(after);
  const changed = [...new Set([...Object.keys(old), ...Object.keys(now)])].filter(
    (name) =>
      old[name] !== now[name] &&
      (name === 'test' || name.startsWith('test:') || commandWords(command).includes(name)),
  );
  if (changed.length === 0) return [];
  const names = changed.map((name) => `"${name}"`).join(', ');
  return [{ path, kind: 'command-edited', reason: `${path}: the test script ${names} was changed.` }];
}

function scriptsOf(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    const scripts =
      typeof parsed === 'object' && parsed !== null ? (parsed as { scripts?: unknown }).scripts : undefined;
    return typeof scripts === 'object' && scripts !== null ? (scripts as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
