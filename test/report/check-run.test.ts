import { describe, expect, it } from 'vitest';
import type { LoopOutcome } from '../../src/loop/events.js';
import { renderCheckRunProgress, renderCheckRunResult } from '../../src/report/check-run.js';
import { checkConclusion } from '../../src/report/outcome.js';
import { Redactor } from '../../src/report/redact.js';
import { fixedRun, midRun } from './fixtures/attempts.js';
import { attemptUrl, PULL_REQUEST_URL } from './fixtures/job-context.js';
import { notFixedRun } from './fixtures/outcomes.js';

const urls = { 1: attemptUrl(1), 2: attemptUrl(2), 3: attemptUrl(3) };

/** A check run output as one Markdown file, for reading and for the snapshot. */
function asMarkdown(output: {
  title: string;
  summary: string;
  text?: string;
  annotations?: unknown[];
}): string {
  return [
    `# ${output.title}`,
    '## summary',
    output.summary,
    '## text',
    output.text ?? '(none)',
    '## annotations',
    JSON.stringify(output.annotations ?? [], null, 2),
    '',
  ].join('\n\n');
}

describe('renderCheckRunProgress', () => {
  it('titles the check run with the current step', async () => {
    const output = renderCheckRunProgress(midRun().view({ attemptCommentUrls: urls }), Redactor.none);
    expect(output.title).toBe('Attempt 2 of 3: running python stats.py data.csv');
    expect(output.summary).toContain('- [ ] **[Attempt 2]');
    await expect(asMarkdown(output)).toMatchFileSnapshot('__snapshots__/check-run-progress.md');
  });
});

describe('renderCheckRunResult', () => {
  it('reports a fix: success, the reflection, the attempts, the diff and annotations', async () => {
    const view = fixedRun().view({ attemptCommentUrls: urls, pullRequestUrl: PULL_REQUEST_URL });
    const { conclusion, output } = renderCheckRunResult(view, Redactor.none);
    expect(conclusion).toBe('success');
    expect(output.title).toBe('Fixed: The command passes now.');
    expect(output.summary).toContain(`Pull request: ${PULL_REQUEST_URL}`);
    expect(output.text).toContain('### Final diff');
    expect(output.annotations).toEqual([
      {
        path: 'stats.py',
        startLine: 2,
        endLine: 2,
        level: 'notice',
        message:
          'Import the statistics module that stats.py uses. The script called statistics.mean without importing it.',
        title: 'Changed by selfdebug',
      },
    ]);
    await expect(asMarkdown(output)).toMatchFileSnapshot('__snapshots__/check-run-fixed.md');
  });

  it('reports a failure without annotations: the lines were never pushed', async () => {
    const { conclusion, output } = renderCheckRunResult(
      notFixedRun().view({ attemptCommentUrls: urls }),
      Redactor.none,
    );
    expect(conclusion).toBe('failure');
    expect(output.title).toBe('Not fixed: Every attempt still failed.');
    expect(output.annotations).toBeUndefined();
    await expect(asMarkdown(output)).toMatchFileSnapshot('__snapshots__/check-run-not-fixed.md');
  });

  it('is neutral and in progress when called before the end', () => {
    const { conclusion, output } = renderCheckRunResult(midRun().view(), Redactor.none);
    expect(conclusion).toBe('neutral');
    expect(output.title).toContain('Attempt 2 of 3');
  });
});

describe('checkConclusion', () => {
  it.each<[LoopOutcome, string]>([
    ['fixed', 'success'],
    ['not-fixed', 'failure'],
    ['declined', 'failure'],
    ['error', 'failure'],
    ['budget-exhausted', 'failure'],
    ['flaky', 'neutral'],
    ['cannot-reproduce', 'neutral'],
    ['explained', 'neutral'],
    ['cancelled', 'cancelled'],
  ])('maps %s to %s', (outcome, conclusion) => {
    expect(checkConclusion(outcome)).toBe(conclusion);
  });
});
