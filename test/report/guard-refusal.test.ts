import { describe, expect, it } from 'vitest';
import type { TestFinding } from '../../src/loop/test-guard/findings.js';
import { renderAttemptComment } from '../../src/report/attempt-comment.js';
import { Redactor } from '../../src/report/redact.js';
import { renderStatusComment } from '../../src/report/status-comment.js';
import { firstAttempt } from './fixtures/attempts.js';
import { FINAL_DIFF, SECOND_DIFF } from './fixtures/diffs.js';
import { exec, SUCCESS_OUTPUT } from './fixtures/exec-results.js';

const REMOVED: TestFinding = {
  path: 'test_stats.py',
  kind: 'assertion-removed',
  reason: 'test_stats.py: an assertion was removed (e.g. "self.assertEqual(median([1, 2, 3]), 2)").',
};
const SKIPPED: TestFinding = {
  path: 'test_stats.py',
  kind: 'skip-added',
  reason: 'test_stats.py: a skip marker was added ("unittest.skip").',
};
/** What the model read: the guard's instruction, then each finding's reason. */
const PROBLEMS = [
  'The repository protects its tests (tests: protect), so these edits were refused: fix the code under test instead.',
  REMOVED.reason,
  SKIPPED.reason,
];

/** Attempt 2 weakens the tests and is refused under `tests: protect`; attempt 3 fixes the code. */
function refusedRun(findings: TestFinding[] = [REMOVED, SKIPPED]) {
  return firstAttempt()
    .attempt(2)
    .model(2, 'generate', '{"analysis":"…","edits":[…]}', 3100, 180)
    .proposal(2, 'The median test is wrong; drop it.', [
      { path: 'test_stats.py', search: '        self.assertEqual(median([1, 2, 3]), 2)\n', replace: '' },
    ])
    .rejected(2, PROBLEMS, findings)
    .attempt(3)
    .model(3, 'generate', '{"analysis":"import statistics","edits":[…]}', 3300, 200)
    .proposal(3, 'Import the `statistics` module instead.', [
      { path: 'stats.py', search: 'from math import mean\n', replace: 'import statistics\n' },
    ])
    .applied(3, SECOND_DIFF)
    .executed(3, exec(0, SUCCESS_OUTPUT, 395))
    .reflected()
    .finished('fixed', 'the command passed on attempt 3', FINAL_DIFF);
}

describe('an attempt the test guard refused', () => {
  it('is headed as refused with what it did and the first finding, not as edits that did not apply', () => {
    const body = renderAttemptComment(refusedRun().view(), 2, Redactor.none);
    expect(body).toContain(
      '### Attempt 2 of 3: 🛡️ refused: it weakened a test ' +
        '(test_stats.py: an assertion was removed (e.g. "self.assertEqual(median([1, 2, 3]), 2)"); 1 more finding)\n',
    );
    expect(body).not.toContain('did not apply');
  });

  it('says the guard refused the edits, and lists every reason the model read', () => {
    const body = renderAttemptComment(refusedRun().view(), 2, Redactor.none);
    expect(body).toContain(
      '#### Edits refused\n\nThe test guard refused the edits (tests: protect), ' +
        'so nothing was written and nothing was run:\n\n',
    );
    for (const problem of PROBLEMS) expect(body).toContain(`- ${problem}`);
    expect(body).toContain('Proposed edits (1)');
    expect(body).not.toContain('#### Run');
  });

  it('names the kind of its first finding, without "more" when it is the only one', () => {
    const body = renderAttemptComment(refusedRun([SKIPPED]).view(), 2, Redactor.none);
    expect(body).toContain(
      '### Attempt 2 of 3: 🛡️ refused: it skipped a test (test_stats.py: a skip marker was added ("unittest.skip"))\n',
    );
  });

  it('is a refused step in the status comment', () => {
    const body = renderStatusComment(refusedRun().view(), Redactor.none);
    expect(body).toContain(
      '- [x] Attempt 2: 🛡️ refused: it weakened a test ' +
        '(test_stats.py: an assertion was removed (e.g. "self.assertEqual(median([1, 2, 3]), 2)"); 1 more finding), ' +
        'nothing was run\n',
    );
    expect(body).not.toContain('did not apply');
  });

  it('is counted apart in the Why line of a job it left unfixed', () => {
    const refusedTwice = firstAttempt()
      .attempt(2)
      .rejected(2, PROBLEMS, [REMOVED])
      .attempt(3)
      .rejected(3, PROBLEMS, [SKIPPED])
      .reflected()
      .finished('not-fixed', 'still failing after 3 attempts');
    expect(renderStatusComment(refusedTwice.view(), Redactor.none)).toContain(
      '**Why:** 3 attempts: 1 ran and failed, 2 refused by the test guard; the last one proposed edits the test guard refused.',
    );
  });
});
