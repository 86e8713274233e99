import { describe, expect, it } from 'vitest';
import { renderAttemptComment } from '../../src/report/attempt-comment.js';
import { parseMarkers } from '../../src/report/markers.js';
import { Redactor } from '../../src/report/redact.js';
import { fixedRun, midRun } from './fixtures/attempts.js';
import { SECOND_DIFF } from './fixtures/diffs.js';
import { IMPORT_ERROR } from './fixtures/exec-results.js';
import { JOB_ID, STATUS_URL } from './fixtures/job-context.js';
import { notFixedRun } from './fixtures/outcomes.js';

describe('renderAttemptComment', () => {
  it('opens with the attempt marker', () => {
    const body = renderAttemptComment(fixedRun().view(), 2, Redactor.none);
    expect(parseMarkers(body)).toEqual([{ kind: 'attempt', jobId: JOB_ID, attempt: 2 }]);
  });

  it('renders a failed attempt with tool calls, a diff, the output and a retry decision', async () => {
    const body = renderAttemptComment(fixedRun().view(), 1, Redactor.none);
    expect(body).toContain('### Attempt 1 of 3: ❌ exit 1 after 380 ms');
    expect(body).toContain('#### Tool calls (2)');
    expect(body).toContain('<code>read_file</code> path=stats.py');
    expect(body).toContain('```diff\n');
    expect(body).toContain(IMPORT_ERROR.trim());
    expect(body).toContain('🔁 **Retry:**');
    expect(body).toContain('**Model:** 4 model calls · 8,300 prompt + 350 completion tokens · $0.0039');
    expect(body).toContain(`[status](${STATUS_URL})`);
    await expect(body).toMatchFileSnapshot('__snapshots__/attempt-failed.md');
  });

  it('names the tested commit, short and linked', () => {
    const body = renderAttemptComment(fixedRun().view(), 1, Redactor.none);
    expect(body).toContain(
      '· attempt 1 · tested on commit [`9fceb02`](https://github.com/acme/reports/commit/9fceb02d0ae598e95dc970b74767f19372d61af8)</sub>',
    );
  });

  it('shows the tokens and which prices to set when the cost is unknown', () => {
    const list = fixedRun();
    for (const event of list.events) if (event.type === 'model-responded') event.costUsd = 0;
    const body = renderAttemptComment(list.view(), 1, Redactor.none);
    expect(body).toContain(
      '**Model:** 4 model calls · 8,300 prompt + 350 completion tokens · cost unknown: set ' +
        '`SELFDEBUG_MODEL_PRICE_INPUT` and `SELFDEBUG_MODEL_PRICE_OUTPUT` (USD per million tokens) to see it ·',
    );
  });

  it('renders the passing attempt', async () => {
    const body = renderAttemptComment(fixedRun().view(), 2, Redactor.none);
    expect(body).toContain('### Attempt 2 of 3: ✅ passed, exit 0 after 395 ms');
    expect(body).toContain(SECOND_DIFF.trim());
    expect(body).not.toContain('Retry decision');
    await expect(body).toMatchFileSnapshot('__snapshots__/attempt-passed.md');
  });

  it('renders rejected edits with their problems and the proposed edits', async () => {
    const body = renderAttemptComment(notFixedRun().view(), 2, Redactor.none);
    expect(body).toContain('### Attempt 2 of 3: ⚠️ the edits did not apply');
    expect(body).toContain('- stats.py: the search text was not found');
    expect(body).toContain('Proposed edits (2)');
    expect(body).not.toContain('#### Run');
    await expect(body).toMatchFileSnapshot('__snapshots__/attempt-rejected.md');
  });

  it('renders a timed-out run', async () => {
    const body = renderAttemptComment(notFixedRun().view(), 3, Redactor.none);
    expect(body).toContain('exit 124 after 2 min, ⏱️ timed out after 120 s');
    expect(body).toContain('retrying row 30: waiting for lock');
    await expect(body).toMatchFileSnapshot('__snapshots__/attempt-timed-out.md');
  });

  it('renders an attempt still running', async () => {
    const body = renderAttemptComment(midRun().view(), 2, Redactor.none);
    expect(body).toContain('### Attempt 2 of 3: ⏳ in progress');
    await expect(body).toMatchFileSnapshot('__snapshots__/attempt-in-progress.md');
  });

  it('says so for an attempt that has not started', () => {
    const body = renderAttemptComment(midRun().view(), 3, Redactor.none);
    expect(body).toContain('This attempt has not started.');
    expect(parseMarkers(body)).toEqual([{ kind: 'attempt', jobId: JOB_ID, attempt: 3 }]);
  });

  it('marks output the sandbox already cut', () => {
    const list = midRun();
    list.executed(2, {
      exitCode: 1,
      end: 'exited',
      reason: null,
      stdout: '',
      stderr: '',
      output: 'head\n[... 1,000,000 bytes omitted ...]\ntail\n',
      truncated: true,
      durationMs: 10,
    });
    const body = renderAttemptComment(list.view(), 2, Redactor.none);
    expect(body).toContain('cut by the sandbox');
    expect(body).toContain('[... 1,000,000 bytes omitted ...]');
  });
});
