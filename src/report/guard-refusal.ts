import type { TestFinding, TestFindingKind } from '../loop/test-guard/findings.js';
import { plural } from './format.js';
import type { AttemptView } from './job-view.js';
import type { MarkdownWriter } from './markdown.js';

/** What an attempt did that the test guard refused, in a reader's words, by the kind of its first finding. */
const WHAT_IT_DID: Record<TestFindingKind, string> = {
  'assertion-removed': 'it weakened a test',
  'assertion-loosened': 'it weakened a test',
  'skip-added': 'it skipped a test',
  'only-added': 'it focused the tests on a few',
  'test-deleted': 'it deleted a test',
  'test-file-deleted': 'it deleted a test file',
  'expected-output-edited': 'it edited expected output',
  'protected-path-edited': 'it edited a protected path',
  'ci-workflow-edited': 'it edited a CI workflow',
  'command-edited': 'it changed what the command runs',
  'coverage-threshold-edited': 'it changed a coverage threshold',
};

/**
 * "refused: it weakened a test (tests/test_calc.py: an assertion was removed …)": why the test guard
 * refused an attempt, from its first finding, for the headlines of the reports. Markdown.
 */
export function guardRefusal(attempt: AttemptView, md: MarkdownWriter): string {
  const [first, ...rest] = attempt.guardFindings ?? [];
  if (!first) return 'refused by the test guard';
  const more = rest.length > 0 ? `; ${plural(rest.length, 'more finding')}` : '';
  return `refused: ${WHAT_IT_DID[first.kind]} (${md.line(withoutFullStop(first), 200)}${more})`;
}

function withoutFullStop(finding: TestFinding): string {
  return finding.reason.replace(/\.$/, '');
}
