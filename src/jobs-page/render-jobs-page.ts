import type { JobRecord, OpenJob } from '../queue/job-store.js';
import { formatCost, formatDuration, Redactor } from '../report/index.js';
import { type HtmlTemplate, htmlTemplate, httpUrl, SafeHtml } from './html.js';
import { jobsChart } from './jobs-chart.js';
import { dailySeries, fixRate, repositoryTotals, type Totals } from './jobs-stats.js';
import { PAGE_STYLE } from './page-style.js';

/** The stylesheet is the room's own constant: trusted markup, not a value to escape. */
const STYLE = new SafeHtml(PAGE_STYLE);

export interface JobsPageData {
  /** Queued and running jobs (JobStore.openJobs). */
  open: readonly OpenJob[];
  /** Finished jobs, newest first (JobStore.history). */
  finished: readonly JobRecord[];
  now: Date;
  /** Values the page must hide besides the redactor's patterns (the operator token). */
  secrets?: readonly string[];
  /** Days the chart covers. */
  days?: number;
}

/**
 * The operator's jobs page, records in, HTML out: no I/O, no clock, no
 * script. Every value passes the project's redactor and HTML escaping
 * (html.ts), so a repository name or a failure reason cannot inject markup
 * or show a secret.
 */
export function renderJobsPage(data: JobsPageData): string {
  const html = htmlTemplate(new Redactor(data.secrets ?? []));
  const running = data.open.filter((job) => job.state === 'running').length;
  const days = data.days ?? 14;
  const page = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>selfdebug jobs</title><style>${STYLE}</style></head>
<body>
<h1>selfdebug jobs</h1>
<p class="meta">As of ${stamp(data.now.toISOString())} · ${data.open.length - running} queued · ${running} running · ${data.finished.length} finished shown</p>
<section><h2>Jobs and fix rate, last ${days} days</h2>${jobsChart(html, dailySeries(data.finished, data.now, days))}</section>
<section><h2>Per repository</h2>${totalsTable(html, data.finished)}</section>
<section><h2>Queued and running</h2>${openTable(html, data.open)}</section>
<section><h2>Finished</h2>${finishedTable(html, data.finished)}</section>
</body></html>
`;
  return page.text;
}

function totalsTable(html: HtmlTemplate, records: readonly JobRecord[]): SafeHtml {
  if (records.length === 0) return html`<p class="empty">No finished jobs yet.</p>`;
  const { repositories, all } = repositoryTotals(records);
  const row = (name: string, totals: Totals, css = '') =>
    html`<tr class="${css}"><td>${name}</td><td class="num">${totals.jobs}</td><td class="num">${totals.fixed}</td><td class="num">${percent(fixRate(totals))}</td><td class="num">${formatCost(totals.costUsd)}</td></tr>`;
  return html`<table><thead><tr><th>Repository</th><th class="num">Jobs</th><th class="num">Fixed</th><th class="num">Fix rate</th><th class="num">Cost</th></tr></thead>
<tbody>${repositories.map((totals) => row(totals.repository, totals))}${row('All repositories', all, 'all')}</tbody></table>`;
}

function openTable(html: HtmlTemplate, jobs: readonly OpenJob[]): SafeHtml {
  if (jobs.length === 0) return html`<p class="empty">Nothing queued or running.</p>`;
  const rows = jobs.map(
    (job) =>
      html`<tr><td><span class="badge ${job.state}">${job.state === 'running' ? 'running' : 'queued'}</span></td><td>${job.repository}</td><td>${trigger(job)}</td><td class="num">${job.runs}</td><td>${stamp(job.enqueuedAt)}</td><td>${job.startedAt ? stamp(job.startedAt) : '—'}</td></tr>`,
  );
  return html`<table><thead><tr><th>State</th><th>Repository</th><th>Trigger</th><th class="num">Runs</th><th>Queued</th><th>Started</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function finishedTable(html: HtmlTemplate, records: readonly JobRecord[]): SafeHtml {
  if (records.length === 0) return html`<p class="empty">No finished jobs yet.</p>`;
  const rows = records.map(
    (record) =>
      html`<tr><td>${stamp(record.finishedAt)}</td><td>${record.repository}</td><td>${trigger(record)}</td><td><span class="badge ${record.outcome}">${record.outcome}</span>${record.reason ? html`<span class="reason">${record.reason}</span>` : null}</td><td class="num">${record.attempts}</td><td class="num">${formatCost(record.costUsd)}</td><td class="num">${formatDuration(record.durationMs)}</td><td>${ciCell(html, record)}</td><td>${links(html, record)}</td></tr>`,
  );
  return html`<table><thead><tr><th>Finished</th><th>Repository</th><th>Trigger</th><th>Outcome</th><th class="num">Attempts</th><th class="num">Cost</th><th class="num">Duration</th><th>Your CI</th><th>Links</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/**
 * What the repository's CI said of the fix the job pushed (docs/ci-verdict.md). `waiting` only while the
 * record carries an open wait: a fix without a verdict and without a wait (`ci_verdict: off`, or a wait that
 * ended with no verdict) is not being followed, and saying `waiting` would promise a verdict that never comes.
 */
function ciCell(html: HtmlTemplate, record: JobRecord): SafeHtml {
  const verdict = record.ciVerdict;
  if (verdict === undefined) {
    if (!record.fixSha) return html`<span class="empty">—</span>`;
    return record.ciWaitUntil === undefined
      ? html`<span class="empty">not followed</span>`
      : html`<span class="badge">waiting</span>`;
  }
  const label = verdict.verdict === 'unknown' ? UNKNOWN[verdict.reason ?? 'cancelled'] : verdict.verdict;
  return html`<span class="badge ci-${verdict.verdict}">${label}</span>`;
}

const UNKNOWN = { 'no-ci': 'no CI', 'timed-out': 'timed out', cancelled: 'cancelled' } as const;

function links(html: HtmlTemplate, record: JobRecord): SafeHtml {
  const found = [
    ['pull request', httpUrl(record.links.pullRequest)],
    ['status comment', httpUrl(record.links.statusComment)],
    ['check run', httpUrl(record.links.checkRun)],
  ].filter((link): link is [string, string] => link[1] !== null);
  if (found.length === 0) return html`<span class="empty">—</span>`;
  return html`${found.map(([name, url], index) => html`${index > 0 ? ' · ' : ''}<a href="${url}" rel="noreferrer">${name}</a>`)}`;
}

function trigger(job: { trigger: string; issueNumber: number | null }): string {
  return job.issueNumber === null ? job.trigger : `${job.trigger} #${job.issueNumber}`;
}

function percent(rate: number | null): string {
  return rate === null ? '—' : `${Math.round(rate * 100)} %`;
}

/** `2026-01-02T03:04:05.000Z` → `2026-01-02 03:04 UTC`. */
function stamp(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
