import { describe, expect, it } from 'vitest';
import { parseMarkers } from '../../src/report/markers.js';
import { Redactor } from '../../src/report/redact.js';
import { renderStatusComment } from '../../src/report/status-comment.js';
import {
  attemptUrl,
  budgetRun,
  cancelledRun,
  cannotReproduceRun,
  declinedRun,
  EventList,
  errorRun,
  exec,
  fixedRun,
  flakyRun,
  JOB_ID,
  midRun,
  NAME_ERROR,
  notFixedRun,
  PULL_REQUEST_URL,
  REFLECTION,
} from './fixtures.js';

const urls = { 1: attemptUrl(1), 2: attemptUrl(2), 3: attemptUrl(3) };

describe('renderStatusComment', () => {
  it('opens with the job status marker', () => {
    const body = renderStatusComment(midRun().view(), Redactor.none);
    expect(parseMarkers(body)).toEqual([{ kind: 'status', jobId: JOB_ID }]);
    expect(body.startsWith(`<!-- selfdebug:status job=${JOB_ID} -->\n`)).toBe(true);
  });

  it('renders a job that has not started', async () => {
    const body = renderStatusComment(new EventList().view(), Redactor.none);
    expect(body).toContain('⏳ Starting');
    await expect(body).toMatchFileSnapshot('__snapshots__/status-queued.md');
  });

  it('renders a job in the middle of attempt 2', async () => {
    const body = renderStatusComment(
      midRun().view({ attemptCommentUrls: { 1: attemptUrl(1) } }),
      Redactor.none,
    );
    expect(body).toContain('⏳ **Attempt 2 of 3:** running `python stats.py data.csv`');
    expect(body).toContain(`- [x] [Attempt 1](${attemptUrl(1)}): ❌ exit 1`);
    await expect(body).toMatchFileSnapshot('__snapshots__/status-mid-run.md');
  });

  it('renders a fix while the pull request is being opened', () => {
    const body = renderStatusComment(fixedRun().view({ attemptCommentUrls: urls }), Redactor.none);
    expect(body).toContain('- [ ] Pull request: ⏳ opening');
  });

  it('renders a fix with its pull request', async () => {
    const view = fixedRun().view({ attemptCommentUrls: urls, pullRequestUrl: PULL_REQUEST_URL });
    const body = renderStatusComment(view, Redactor.none);
    expect(body).toContain('✅ **Fixed.**');
    expect(body).toContain(`- [x] Pull request: ${PULL_REQUEST_URL}`);
    await expect(body).toMatchFileSnapshot('__snapshots__/status-fixed.md');
  });

  it('says why a pull request could not be opened', () => {
    const view = fixedRun().view({ deliveryError: 'the branch is protected' });
    expect(renderStatusComment(view, Redactor.none)).toContain(
      '- [ ] Pull request: ⚠️ could not be opened: the branch is protected',
    );
  });

  it.each([
    ['not-fixed', notFixedRun, '❌ **Not fixed.**'],
    ['declined', declinedRun, '🛑 **Declined.**'],
    ['flaky', flakyRun, '🎲 **Flaky.**'],
    ['cannot-reproduce', cannotReproduceRun, '🔍 **Cannot reproduce.**'],
    ['budget-exhausted', budgetRun, '💸 **Budget exhausted.**'],
    ['cancelled', cancelledRun, '⏹️ **Cancelled.**'],
    ['error', errorRun, '⚠️ **Error.**'],
  ])('renders the %s outcome', async (name, run, headline) => {
    const body = renderStatusComment(run().view({ attemptCommentUrls: urls }), Redactor.none);
    expect(body).toContain(headline);
    expect(body).not.toContain('⏳');
    await expect(body).toMatchFileSnapshot(`__snapshots__/status-${name}.md`);
  });

  it('shows cost only when it is known', () => {
    const list = fixedRun();
    for (const event of list.events) {
      if (event.type === 'model-responded' || event.type === 'finished') event.total.costUsd = 0;
    }
    const body = renderStatusComment(list.view(), Redactor.none);
    expect(body).toMatch(/\*\*Spend:\*\* [\d,]+ prompt \+ [\d,]+ completion tokens · took 1 min 35 s/);
    expect(body).not.toContain('$');
  });
});

describe('renderStatusComment for explain jobs', () => {
  it('has no pull request step and says it explains', async () => {
    const list = new EventList()
      .started()
      .reproduced('failing', [exec(1, NAME_ERROR, 412)])
      .reflected(REFLECTION)
      .finished('explained', 'reproduced the failure; explaining it without changing code', '', 7_000);
    const view = list.view({
      trigger: {
        kind: 'mention',
        command: 'explain',
        issueNumber: 12,
        isPullRequest: false,
        requestedBy: 'alice',
      },
    });
    const body = renderStatusComment(view, Redactor.none);
    expect(body).toContain('### 🤖 selfdebug: explaining `python stats.py data.csv`');
    expect(body).toContain('📝 **Explained.**');
    expect(body).not.toContain('Pull request');
    await expect(body).toMatchFileSnapshot('__snapshots__/status-explained.md');
  });
});
