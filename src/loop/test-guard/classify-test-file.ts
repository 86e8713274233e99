import { type EditedFile, lineChanges, quote, type TestFinding } from './findings.js';
import { tableCaseFindings } from './table-case-findings.js';
import { type TestSyntax, testNames, testPart } from './test-syntax.js';

/**
 * What an edit does to one test file: deleted, tests removed, assertions
 * removed or changed, skip or focus markers added. New tests and new
 * assertions are never a finding.
 */
export function classifyTestFile(file: EditedFile, syntax: TestSyntax): TestFinding[] {
  const { path, before, after } = file;
  const kind = `a ${syntax.name} test file`;
  if (before === null) return [];
  if (after === null || testPart(path, syntax, after).trim() === '') {
    if (testPart(path, syntax, before).trim() === '') return [];
    return [{ path, kind: 'test-file-deleted', reason: `${path}: ${kind} was deleted or emptied.` }];
  }
  const old = testPart(path, syntax, before);
  const now = testPart(path, syntax, after);
  return [
    ...deletedTests(path, syntax, old, now),
    ...assertionChanges(path, syntax, old, now),
    ...markers(path, syntax, old, now),
    ...(syntax.tableCases ? tableCaseFindings(path, syntax.tableCases(old), syntax.tableCases(now)) : []),
  ];
}

function deletedTests(path: string, syntax: TestSyntax, before: string, after: string): TestFinding[] {
  const gone = lineChanges(testNames(syntax, before).join('\n'), testNames(syntax, after).join('\n')).removed;
  if (gone.length === 0) return [];
  const names = gone.map(quote).join(', ');
  const count = gone.length === 1 ? 'a test was' : `${gone.length} tests were`;
  return [{ path, kind: 'test-deleted', reason: `${path}: ${count} deleted or renamed: ${names}.` }];
}

function assertionChanges(path: string, syntax: TestSyntax, before: string, after: string): TestFinding[] {
  const { removed, added } = lineChanges(before, after);
  const lost = removed.filter((line) => syntax.assertion.test(line));
  if (lost.length === 0) return [];
  const gained = added.filter((line) => syntax.assertion.test(line));
  if (gained.length >= lost.length) {
    const example = `${quote(lost[0] as string)} became ${quote(gained[0] as string)}`;
    const count = lost.length === 1 ? 'an assertion was' : `${lost.length} assertions were`;
    return [
      {
        path,
        kind: 'assertion-loosened',
        reason: `${path}: ${count} changed, which loosens or rewrites what the test expects (${example}).`,
      },
    ];
  }
  const count = lost.length - gained.length;
  return [
    {
      path,
      kind: 'assertion-removed',
      reason: `${path}: ${count === 1 ? 'an assertion was' : `${count} assertions were`} removed (e.g. ${quote(lost[0] as string)}).`,
    },
  ];
}

function markers(path: string, syntax: TestSyntax, before: string, after: string): TestFinding[] {
  const { removed, added } = lineChanges(before, after);
  const findings: TestFinding[] = [];
  const skips = added.filter((line) => syntax.skip.test(line)).length;
  const skipped = skips - removed.filter((line) => syntax.skip.test(line)).length;
  if (skipped > 0) {
    const example = quote(added.find((line) => syntax.skip.test(line)) as string);
    findings.push({ path, kind: 'skip-added', reason: `${path}: a skip marker was added (${example}).` });
  }
  const only = syntax.only;
  if (
    only &&
    added.filter((line) => only.test(line)).length > removed.filter((line) => only.test(line)).length
  ) {
    const example = quote(added.find((line) => only.test(line)) as string);
    findings.push({
      path,
      kind: 'only-added',
      reason: `${path}: a focus marker was added, so the other tests stop running (${example}).`,
    });
  }
  return findings;
}
