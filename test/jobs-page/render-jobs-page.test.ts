import { describe, expect, it } from 'vitest';
import { niceMax } from '../../src/jobs-page/jobs-chart.js';
import { dailySeries, fixRate, repositoryTotals } from '../../src/jobs-page/jobs-stats.js';
import { renderJobsPage } from '../../src/jobs-page/render-jobs-page.js';
import type { JobOutcome, JobRecord, OpenJob } from '../../src/queue/job-store.js';

const NOW = new Date('2026-03-10T12:00:00Z');
const OPERATOR_TOKEN = 'op-secret-0123456789abcdefghijkl';

function record(overrides: Partial<JobRecord> & { outcome: JobOutcome }): JobRecord {
  return {
    id: 'job',
    deliveryId: 'delivery',
    installationId: 1,
    repository: 'octo/repo',
    issueNumber: 7,
    trigger: 'mention',
    runs: 1,
    reason: null,
    attempts: 1,
    tokens: 100,
    costUsd: 0.01,
    links: { pullRequest: null, statusComment: null, checkRun: null },
    enqueuedAt: '2026-03-10T10:00:00.000Z',
    startedAt: '2026-03-10T10:00:01.000Z',
    finishedAt: '2026-03-10T10:05:01.000Z',
    durationMs: 300_000,
    waitMs: 1000,
    ...overrides,
  };
}

const open: OpenJob = {
  id: 'open-1',
  installationId: 1,
  repository: 'octo/repo',
  issueNumber: 9,
  trigger: 'review',
  state: 'running',
  runs: 2,
  enqueuedAt: '2026-03-10T11:00:00.000Z',
  startedAt: '2026-03-10T11:00:02.000Z',
};

describe('renderJobsPage', () => {
  it('escapes every value: a repository name or reason cannot add markup or a link', () => {
    const html = renderJobsPage({
      open: [{ ...open, repository: 'evil/<script>alert(1)</script>' }],
      finished: [
        record({
          outcome: 'failed',
          repository: 'x/"><img src=x onerror=alert(1)>',
          reason: "it's <b>bold</b> & broken",
          links: {
            pullRequest: 'javascript:alert(1)',
            statusComment: 'https://github.com/x/y/issues/1"onmouseover="x',
            checkRun: null,
          },
        }),
      ],
      now: NOW,
    });
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>bold');
    expect(html).toContain('evil/&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('it&#39;s &lt;b&gt;bold&lt;/b&gt; &amp; broken');
    expect(html).not.toContain('javascript:');
    expect(html).toContain('href="https://github.com/x/y/issues/1&quot;onmouseover=&quot;x"');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script/i);
  });

  it('passes every value through the redactor: credentials and the operator token never show', () => {
    const leaked = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const html = renderJobsPage({
      open: [],
      finished: [
        record({ outcome: 'error', reason: `push failed with ${leaked} and ${OPERATOR_TOKEN}` }),
        record({ outcome: 'fixed', repository: `octo/${OPERATOR_TOKEN}` }),
      ],
      now: NOW,
      secrets: [OPERATOR_TOKEN],
    });
    expect(html).not.toContain(leaked);
    expect(html).not.toContain(OPERATOR_TOKEN);
    expect(html).toContain('push failed with [REDACTED] and [REDACTED]');
  });

  it('lists open and finished jobs with their outcome, attempts, cost, duration and links', () => {
    const html = renderJobsPage({
      open: [
        open,
        {
          ...open,
          id: 'open-2',
          state: 'waiting',
          runs: 0,
          startedAt: null,
          issueNumber: null,
          trigger: 'workflow-run',
        },
      ],
      finished: [
        record({
          outcome: 'fixed',
          attempts: 2,
          costUsd: 0.0421,
          durationMs: 125_000,
          links: {
            pullRequest: 'https://github.com/octo/repo/pull/12',
            statusComment: 'https://github.com/octo/repo/issues/7#issuecomment-1',
            checkRun: 'https://github.com/octo/repo/runs/5',
          },
        }),
      ],
      now: NOW,
    });
    expect(html).toContain('1 queued · 1 running · 1 finished shown');
    expect(html).toContain(
      '<span class="badge running">running</span></td><td>octo/repo</td><td>review #9</td><td class="num">2</td>',
    );
    expect(html).toContain(
      '<span class="badge waiting">queued</span></td><td>octo/repo</td><td>workflow-run</td>',
    );
    expect(html).toContain(
      '<span class="badge fixed">fixed</span></td><td class="num">2</td><td class="num">$0.0421</td><td class="num">2 min 5 s</td>',
    );
    expect(html).toContain(
      '<a href="https://github.com/octo/repo/pull/12" rel="noreferrer">pull request</a>',
    );
    expect(html).toContain('>status comment</a>');
    expect(html).toContain('>check run</a>');
  });

  it("shows what the repository's CI said of each pushed fix: passed, failed, no CI, waiting while the wait is open, not followed without one", () => {
    const verdict = (kind: 'passed' | 'failed' | 'unknown', reason: 'no-ci' | null = null) => ({
      verdict: kind,
      reason,
      sha: 'f'.repeat(40),
      runs: kind === 'unknown' ? 0 : 1,
      workflows: [],
    });
    const fixed = (id: string, extra: Partial<JobRecord>) =>
      record({ outcome: 'fixed', id, fixSha: 'f'.repeat(40), ...extra });
    const html = renderJobsPage({
      open: [],
      finished: [
        fixed('a', { ciVerdict: verdict('passed') }),
        fixed('b', { ciVerdict: verdict('failed') }),
        fixed('c', { ciVerdict: verdict('unknown', 'no-ci') }),
        fixed('d', { ciWaitUntil: NOW.getTime() + 60_000 }),
        fixed('e', {}),
        record({ outcome: 'not-fixed', id: 'f' }),
      ],
      now: NOW,
    });
    const cells = [
      ...html.matchAll(/<td class="num">[^<]*<\/td><td>(<span class="[^"]*">[^<]*<\/span>)<\/td><td>/g),
    ].map((match) => match[1]);
    expect(cells).toEqual([
      '<span class="badge ci-passed">passed</span>',
      '<span class="badge ci-failed">failed</span>',
      '<span class="badge ci-unknown">no CI</span>',
      '<span class="badge">waiting</span>',
      '<span class="empty">not followed</span>',
      '<span class="empty">—</span>',
    ]);
    expect(html).toContain('<th>Your CI</th>');
  });

  it('says so when there is nothing to show', () => {
    const html = renderJobsPage({ open: [], finished: [], now: NOW });
    expect(html).toContain('Nothing queued or running.');
    expect(html).toContain('No finished jobs yet.');
    expect(html).toContain('<svg class="chart"');
  });
});

describe('the totals and the chart', () => {
  const records = [
    record({ outcome: 'fixed', repository: 'octo/a', costUsd: 0.5, finishedAt: '2026-03-10T09:00:00.000Z' }),
    record({
      outcome: 'not-fixed',
      repository: 'Octo/A',
      costUsd: 0.25,
      finishedAt: '2026-03-10T08:00:00.000Z',
    }),
    record({
      outcome: 'explained',
      repository: 'octo/a',
      costUsd: 0.125,
      finishedAt: '2026-03-08T08:00:00.000Z',
    }),
    record({ outcome: 'fixed', repository: 'octo/b', costUsd: 1, finishedAt: '2026-03-08T07:00:00.000Z' }),
    record({ outcome: 'refused', repository: 'octo/b', costUsd: 0, finishedAt: '2026-02-01T07:00:00.000Z' }),
  ];

  it('adds up jobs, fixed, fix rate and cost per repository (any case) and over all', () => {
    const { repositories, all } = repositoryTotals(records);
    expect(repositories).toEqual([
      { repository: 'octo/a', jobs: 3, fixed: 1, attempted: 2, costUsd: 0.875 },
      { repository: 'octo/b', jobs: 2, fixed: 1, attempted: 1, costUsd: 1 },
    ]);
    expect(all).toEqual({ jobs: 5, fixed: 2, attempted: 3, costUsd: 1.875 });
    expect(fixRate(repositories[0]!)).toBe(0.5);
    expect(fixRate({ jobs: 1, fixed: 0, attempted: 0, costUsd: 0 })).toBeNull();
    const html = renderJobsPage({ open: [], finished: records, now: NOW });
    expect(html).toContain(
      '<td>octo/a</td><td class="num">3</td><td class="num">1</td><td class="num">50 %</td><td class="num">$0.8750</td>',
    );
    expect(html).toContain(
      '<tr class="all"><td>All repositories</td><td class="num">5</td><td class="num">2</td><td class="num">67 %</td><td class="num">$1.88</td>',
    );
  });

  it('counts jobs per UTC day over the chart window, leaving older ones out', () => {
    const series = dailySeries(records, NOW, 3);
    expect(series.map(({ day, jobs, fixed }) => ({ day, jobs, fixed }))).toEqual([
      { day: '2026-03-08', jobs: 2, fixed: 1 },
      { day: '2026-03-09', jobs: 0, fixed: 0 },
      { day: '2026-03-10', jobs: 2, fixed: 1 },
    ]);
  });

  it('draws one bar per day, a fix-rate point per day that had fixes to try, and day labels', () => {
    const html = renderJobsPage({ open: [], finished: records, now: NOW, days: 3 });
    const svg = html.slice(html.indexOf('<svg'), html.indexOf('</svg>'));
    // Three days' bars and the legend's swatch.
    expect(svg.match(/<rect class="bar"/g)).toHaveLength(4);
    expect(svg).toContain('<title>2026-03-10: 2 jobs, 1 fixed (50 %)</title>');
    expect(svg).toContain('<title>2026-03-09: 0 jobs, 0 fixed</title>');
    // 03-08: one fix out of one attempt (the explained job does not count) → 100 %; 03-10 → 50 %.
    expect(svg.match(/<circle class="rate"/g)).toHaveLength(2);
    const points = /<polyline class="rate" points="([^"]*)"/.exec(svg)![1]!.split(' ');
    const heights = points.map((point) => Number(point.split(',')[1]));
    expect(heights[0]).toBeLessThan(heights[1]!);
    for (const label of ['03-08', '03-09', '03-10', '100 %', '50 %'])
      expect(svg).toContain(`>${label}</text>`);
  });

  it('rounds the jobs axis up to a readable number', () => {
    expect([0, 3, 7, 12, 48, 130].map(niceMax)).toEqual([1, 3, 7, 15, 50, 150]);
  });
});
