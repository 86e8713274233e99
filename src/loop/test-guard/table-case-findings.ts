import { quote, type TestFinding } from './findings.js';
import type { TableCase } from './go-table-cases.js';

/**
 * What an edit does to a test's table of cases. A case is found again by its
 * key (its name, map key or inputs): a case whose row changed had its expected
 * value (or its input) rewritten, which makes a failing case pass as surely as
 * a loosened assertion; a case that is gone was deleted. New cases are fine.
 */
export function tableCaseFindings(
  path: string,
  before: readonly TableCase[],
  after: readonly TableCase[],
): TestFinding[] {
  const edited: string[] = [];
  const deleted: string[] = [];
  const afterByKey = groupByKey(after);
  for (const [key, old] of groupByKey(before)) {
    const now = afterByKey.get(key) ?? [];
    const gone = minusRows(old, now);
    const added = minusRows(now, old);
    gone.forEach((row, index) => {
      const replacement = added[index];
      if (replacement) edited.push(`${describe(row)} became ${quote(replacement.row)}`);
      else deleted.push(row.label);
    });
  }
  return [...editedFinding(path, edited), ...deletedFinding(path, deleted)];
}

function editedFinding(path: string, edited: string[]): TestFinding[] {
  if (edited.length === 0) return [];
  const count =
    edited.length === 1 ? 'a case of a test table was' : `${edited.length} cases of test tables were`;
  return [
    {
      path,
      kind: 'expected-output-edited',
      reason: `${path}: ${count} rewritten, which changes what the test expects (${edited[0]}).`,
    },
  ];
}

function deletedFinding(path: string, deleted: string[]): TestFinding[] {
  if (deleted.length === 0) return [];
  const count =
    deleted.length === 1 ? 'a case of a test table was' : `${deleted.length} cases of test tables were`;
  return [
    {
      path,
      kind: 'test-deleted',
      reason: `${path}: ${count} deleted: ${deleted.slice(0, 3).map(quote).join(', ')}.`,
    },
  ];
}

/** "the case "Keyword" {…}": its name when it has one, and its row. */
function describe(row: TableCase): string {
  return row.label === row.row ? quote(row.row) : `the case ${row.label} ${quote(row.row)}`;
}

function groupByKey(cases: readonly TableCase[]): Map<string, TableCase[]> {
  const groups = new Map<string, TableCase[]>();
  for (const entry of cases) groups.set(entry.key, [...(groups.get(entry.key) ?? []), entry]);
  return groups;
}

/** The cases of `left` whose rows `right` does not hold, counting repeats. */
function minusRows(left: readonly TableCase[], right: readonly TableCase[]): TableCase[] {
  const rest = right.map((entry) => entry.row);
  return left.filter((entry) => {
    const at = rest.indexOf(entry.row);
    if (at >= 0) rest.splice(at, 1);
    return at < 0;
  });
}
