import { describe, expect, it } from 'vitest';
import { GITHUB_BODY_LIMIT } from '../../src/report/limits.js';
import { parseMarkers } from '../../src/report/markers.js';
import { Redactor } from '../../src/report/redact.js';
import { renderStatusComment } from '../../src/report/status-comment.js';
import { mentionTrigger } from '../fakes/job-requests.js';
import { fixedRun, midRun } from './fixtures/attempts.js';
import { FIRST_DIFF } from './fixtures/diffs.js';
import { EventList } from './fixtures/event-list.js';
import { exec, IMPORT_ERROR, NAME_ERROR } from './fixtures/exec-results.js';
import { attemptUrl, COMMAND, JOB_ID, PULL_REQUEST_URL } from './fixtures/job-context.js';
import {
  budgetRun,
  cancelledRun,
  cannotReproduceRun,
  declinedRun,
  errorRun,
  flakyRun,
  notFixedRun,
} from './fixtures/outcomes.js';
import { REFLECTION } from './fixtures/reflection.js';

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

  it('shows the tokens and which prices to set when the cost is unknown', () => {
    const list = fixedRun();
    for (const event of list.events) {
      if (event.type === 'model-responded' || event.type === 'finished') event.total.costUsd = 0;
    }
    const body = renderStatusComment(list.view(), Redactor.none);
    expect(body).toContain(
      '**Spend:** 13,800 prompt + 710 completion tokens · cost unknown: set `SELFDEBUG_MODEL_PRICE_INPUT` and ' +
        '`SELFDEBUG_MODEL_PRICE_OUTPUT` (USD per million tokens) to see it · took 1 min 35 s',
    );
    expect(body).not.toContain('$');
  });

  it('names the tested commit, short and linked', () => {
    const body = renderStatusComment(midRun().view(), Redactor.none);
    expect(body).toContain(
      'Asked by @\u200dalice in issue #12 · tested on commit [`9fceb02`](https://github.com/acme/reports/commit/9fceb02d0ae598e95dc970b74767f19372d61af8) · model',
    );
  });

  it('gives a reason that the outcome line does not already say', () => {
    const notFixed = renderStatusComment(notFixedRun().view(), Redactor.none);
    expect(notFixed).toContain(
      '**Why:** 3 attempts: 2 ran and failed, 1 had edits that did not apply; the last one ended with exit 124 after 2 min, ⏱️ timed out after 120 s.',
    );
    expect(notFixed).not.toContain('still failing after 3 attempts');
    const fixed = renderStatusComment(fixedRun().view(), Redactor.none);
    expect(fixed).toContain('**Why:** attempt 2 of 3 passed after changing `stats.py`.');
    const flaky = renderStatusComment(flakyRun().view(), Redactor.none);
    expect(flaky).toContain(
      '**Why:** `python stats.py data.csv` passed 1 of 2 identical runs, then failed with exit 1 after 530 ms.',
    );
    // A reason with facts of its own (the model's, a budget's) is shown as given.
    expect(renderStatusComment(declinedRun().view(), Redactor.none)).toContain(
      '**Why:** The script downloads data.csv from an internal host, and the sandbox has no network.',
    );
  });

  it("keeps the loop's reason beside the facts when there is no reflection", () => {
    const list = notFixedRun();
    const reflected = list.events.findIndex((event) => event.type === 'reflected');
    list.events.splice(reflected, 1);
    const finished = list.events.at(-1)!;
    if (finished.type === 'finished')
      finished.reason =
        "still failing after 3 attempts (no reflection: the model's answer could not be read as one)";
    expect(renderStatusComment(list.view(), Redactor.none)).toContain(
      "timed out after 120 s — still failing after 3 attempts (no reflection: the model's answer could not be read as one)",
    );
  });
});

describe('renderStatusComment with report.comments: single', () => {
  it('holds every attempt transcript, collapsed, with the one in progress open', () => {
    const body = renderStatusComment(midRun().view({ comments: 'single' }), Redactor.none);
    expect(body).toContain('#### Attempts');
    expect(body).toContain(
      '<details><summary>Attempt 1 of 3: ❌ exit 1 after 380 ms</summary>\n\n#### Analysis',
    );
    expect(body).toContain('<details open><summary>Attempt 2 of 3: ⏳ in progress</summary>');
    expect(body).toContain(IMPORT_ERROR.trim());
    expect(body).toContain('🔁 **Retry:**');
  });

  it('stays under GitHub’s comment limit with five attempts of long output, marking each cut', () => {
    const noisy = `${'x'.repeat(79)}\n`.repeat(400);
    const list = new EventList(COMMAND, 5).started().reproduced('failing', [exec(1, noisy, 400)]);
    for (let attempt = 1; attempt <= 5; attempt++) {
      list
        .attempt(attempt)
        .model(attempt, 'generate', '{}', 1000, 100)
        .proposal(attempt, `try ${attempt}`, [{ path: 'stats.py', search: 'a', replace: 'b' }])
        .applied(attempt, FIRST_DIFF)
        .executed(attempt, exec(1, `attempt ${attempt}\n${noisy}`, 400));
      if (attempt < 5) list.decided(attempt, true, 'again');
    }
    list.finished('not-fixed', 'still failing after 5 attempts');
    const body = renderStatusComment(list.view({ comments: 'single' }), Redactor.none);
    expect(body.length).toBeLessThanOrEqual(GITHUB_BODY_LIMIT);
    for (let attempt = 1; attempt <= 5; attempt++)
      expect(body).toContain(`<summary>Attempt ${attempt} of 5: ❌ exit 1 after 400 ms</summary>`);
    expect(body).toContain("characters cut to fit GitHub's limit …]");
    expect(body).toContain('</sub>\n');
  });
});

describe('renderStatusComment notes', () => {
  it("shows the job's notes under the header", () => {
    const note = '`model.base_url` is ignored: this App sends its API key only to its own model server.';
    const body = renderStatusComment(midRun().view({ notes: [note] }), Redactor.none);
    expect(body).toContain(`> **Note:** ${note}\n\n`);
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
      trigger: mentionTrigger({ command: 'explain', issueNumber: 12 }),
      requestedBy: 'alice',
    });
    const body = renderStatusComment(view, Redactor.none);
    expect(body).toContain('### 🤖 selfdebug: explaining `python stats.py data.csv`');
    expect(body).toContain('📝 **Explained.**');
    expect(body).not.toContain('Pull request');
    await expect(body).toMatchFileSnapshot('__snapshots__/status-explained.md');
  });
});
