/**
 * What the test guard finds in an attempt's edits. A finding names a file, a
 * kind a program can count and a reason a person (and the model) reads.
 */
export type TestFindingKind =
  | 'assertion-removed'
  | 'assertion-loosened'
  | 'skip-added'
  | 'only-added'
  | 'test-deleted'
  | 'test-file-deleted'
  | 'expected-output-edited'
  | 'protected-path-edited'
  | 'ci-workflow-edited'
  | 'command-edited'
  | 'coverage-threshold-edited';

export interface TestFinding {
  path: string;
  kind: TestFindingKind;
  reason: string;
}

/** What the pull request says about the tests a fix touches: each test file and why, and every finding. */
export interface TestEdits {
  files: { path: string; why: string }[];
  findings: TestFinding[];
}

/** The label a pull request gets when its fix changes what judges it (tests: flag). */
export const TESTS_EDITED_LABEL = 'selfdebug:tests-edited';

/** One file as the attempt found it and as its edits would leave it; null when it does not exist. */
export interface EditedFile {
  path: string;
  before: string | null;
  after: string | null;
}

/** What the guard needs besides the edits: the command that proves the fix, and the config's globs. */
export interface TestGuardContext {
  command: string;
  protectedPaths: readonly string[];
}

/** How the loop treats a finding: `protect` rejects the attempt, `flag` lets it through and reports it. */
export type TestPolicy = 'protect' | 'flag' | 'allow';

export const TEST_POLICIES = ['protect', 'flag', 'allow'] as const;

/** A line quoted in a reason, kept short so one finding stays one line. */
export function quote(line: string): string {
  const trimmed = line.trim();
  return JSON.stringify(trimmed.length > 100 ? `${trimmed.slice(0, 97)}...` : trimmed);
}

/** Lines removed and added between two texts, compared as multisets of trimmed, non-empty lines. */
export function lineChanges(before: string, after: string): { removed: string[]; added: string[] } {
  return { removed: minus(lines(before), lines(after)), added: minus(lines(after), lines(before)) };
}

/** The lines of `left` that `right` does not account for, counting repeats. */
function minus(left: string[], right: string[]): string[] {
  const counts = new Map<string, number>();
  for (const line of right) counts.set(line, (counts.get(line) ?? 0) + 1);
  const rest: string[] = [];
  for (const line of left) {
    const count = counts.get(line) ?? 0;
    if (count > 0) counts.set(line, count - 1);
    else rest.push(line);
  }
  return rest;
}

function lines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}
