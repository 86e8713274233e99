import { describe, expect, it } from 'vitest';
import {
  renderPullRequestBody,
  renderPullRequestTitle,
  TITLE_LENGTH,
} from '../../src/report/pull-request.js';
import { Redactor } from '../../src/report/redact.js';
import { mentionTrigger } from '../fakes/job-requests.js';
import { fixedRun } from './fixtures/attempts.js';
import { attemptUrl, PULL_REQUEST_URL } from './fixtures/job-context.js';
import { REFLECTION } from './fixtures/reflection.js';

const urls = { 1: attemptUrl(1), 2: attemptUrl(2) };

describe('renderPullRequestTitle', () => {
  it("is the reflection's first sentence after the prefix", () => {
    expect(renderPullRequestTitle(fixedRun().view(), Redactor.none)).toBe(
      'selfdebug: Import the statistics module that stats.py uses',
    );
  });

  it('is cut to fit a title and kept on one line', () => {
    const list = fixedRun();
    const summary = `Rewrite the CSV parsing\nso that quoted fields with commas, newlines and escaped quotes are read correctly by every script`;
    list.events.forEach((event) => {
      if (event.type === 'reflected') event.reflection = { ...REFLECTION, summary };
    });
    const title = renderPullRequestTitle(list.view(), Redactor.none, 'fix: ');
    expect(title.length).toBeLessThanOrEqual(TITLE_LENGTH);
    expect(title).toMatch(/^fix: Rewrite the CSV parsing so that quoted fields .*…$/);
  });

  it('names the command when there is no reflection', () => {
    const list = fixedRun();
    list.events.splice(
      list.events.findIndex((event) => event.type === 'reflected'),
      1,
    );
    expect(renderPullRequestTitle(list.view(), Redactor.none)).toBe(
      'selfdebug: fix python stats.py data.csv',
    );
  });
});

describe('renderPullRequestBody', () => {
  it('renders the reflection, the verification, the links and Fixes #N', async () => {
    const body = renderPullRequestBody(
      fixedRun().view({ attemptCommentUrls: urls, pullRequestUrl: PULL_REQUEST_URL }),
      Redactor.none,
    );
    expect(body).toContain('### Root cause');
    expect(body).toContain('**Confidence:** high');
    expect(body).toContain('On attempt 2, in the sandbox: `python stats.py data.csv` → exit 0 after 395 ms');
    expect(body).toContain(`attempts [1](${attemptUrl(1)}), [2](${attemptUrl(2)})`);
    expect(body).toContain('$0.0067');
    expect(body).toContain('Review it like any other contribution before merging.');
    expect(body.trimEnd().endsWith('Fixes #12')).toBe(true);
    await expect(body).toMatchFileSnapshot('__snapshots__/pull-request.md');
  });

  it('closes nothing when the trigger was not an issue', () => {
    const workflow = fixedRun().view({
      trigger: {
        kind: 'workflow-run',
        workflowName: 'CI',
        workflowPath: '.github/workflows/ci.yml',
        runId: 9001,
        runAttempt: 1,
        branch: 'main',
        ownPullRequest: null,
      },
      requestedBy: 'alice',
    });
    const pullRequest = fixedRun().view({
      trigger: mentionTrigger({ issueNumber: 40, isPullRequest: true }),
      requestedBy: 'bob',
    });
    expect(renderPullRequestBody(workflow, Redactor.none)).not.toContain('Fixes');
    expect(renderPullRequestBody(workflow, Redactor.none)).toContain(
      'Workflow `CI` failed on `main` (run 9001, attempt 1)',
    );
    expect(renderPullRequestBody(pullRequest, Redactor.none)).not.toContain('Fixes');
  });

  it('cannot be made to close other issues by the model', () => {
    const list = fixedRun();
    list.events.forEach((event) => {
      if (event.type === 'reflected')
        event.reflection = { ...REFLECTION, changes: 'This fixes #3 and closes #4.' };
    });
    const body = renderPullRequestBody(list.view(), Redactor.none);
    expect(body).not.toMatch(/#[34]\b/);
    expect(body).toMatch(/#12\n$/);
  });
});
