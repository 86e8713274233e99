import { describe, expect, it } from 'vitest';
import { needsFinalComment, renderFinalComment } from '../../src/report/final-comment.js';
import { parseMarkers } from '../../src/report/markers.js';
import { Redactor } from '../../src/report/redact.js';
import { midRun } from './fixtures/attempts.js';
import { attemptUrl, JOB_ID } from './fixtures/job-context.js';
import { budgetRun, cancelledRun, declinedRun, errorRun, notFixedRun } from './fixtures/outcomes.js';

const urls = { 1: attemptUrl(1), 2: attemptUrl(2), 3: attemptUrl(3) };

describe('renderFinalComment', () => {
  it('renders a job that was not fixed: conclusion, attempts, next steps', async () => {
    const body = renderFinalComment(notFixedRun().view({ attemptCommentUrls: urls }), Redactor.none);
    expect(parseMarkers(body)).toEqual([{ kind: 'final', jobId: JOB_ID }]);
    expect(body).toContain('### ❌ Not fixed: `python stats.py data.csv`');
    expect(body).toContain('**Root cause** (confidence: low)');
    expect(body).toContain(`2. [Attempt 2](${attemptUrl(2)}): Replace the`);
    expect(body).toContain('→ ⚠️ the edits did not apply');
    expect(body).toContain('Some runs hit the time limit');
    await expect(body).toMatchFileSnapshot('__snapshots__/final-not-fixed.md');
  });

  it.each([
    ['declined', declinedRun, 'If you disagree'],
    ['budget-exhausted', budgetRun, '`budget.max_tokens`'],
    ['error', errorRun, '`setup`'],
    ['cancelled', cancelledRun, 'Run it again with `@selfdebug retry`.'],
  ])('renders the %s outcome with advice for it', async (name, run, advice) => {
    const body = renderFinalComment(run().view({ attemptCommentUrls: urls }), Redactor.none);
    expect(body).toContain('#### What you could try next');
    expect(body).toContain(advice);
    await expect(body).toMatchFileSnapshot(`__snapshots__/final-${name}.md`);
  });

  it('uses the App handle in its suggestions, as code so it never pings', () => {
    const body = renderFinalComment(declinedRun().view({ handle: 'fixbot' }), Redactor.none);
    expect(body).toContain('`@fixbot retry`');
    expect(body).not.toMatch(/(^|[^`])@fixbot/m);
  });

  it('says when the job has not finished', () => {
    expect(renderFinalComment(midRun().view(), Redactor.none)).toContain('The job has not finished yet.');
  });
});

describe('needsFinalComment', () => {
  it('is for every outcome except a fix, which has its pull request', () => {
    expect(needsFinalComment('fixed')).toBe(false);
    expect(needsFinalComment('not-fixed')).toBe(true);
    expect(needsFinalComment('cancelled')).toBe(true);
    expect(needsFinalComment('flaky')).toBe(true);
  });
});
