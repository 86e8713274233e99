import { describe, expect, it } from 'vitest';
import { PrometheusMetrics } from '../../src/adapters/prometheus/index.js';
import { NO_LINKS } from '../../src/queue/job-store.js';
import { sample } from '../e2e/support/metrics.js';

const fixed = {
  outcome: 'fixed' as const,
  reason: null,
  attempts: 2,
  tokens: 1920,
  costUsd: 0.0042,
  links: NO_LINKS,
};

describe('PrometheusMetrics', () => {
  it('counts a finished job by trigger and outcome, with its attempts, tokens, cost and duration', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    metrics.jobStarted('mention', 1500);
    metrics.jobFinished('mention', fixed, 90_000);
    metrics.jobFinished('workflow-run', { ...fixed, outcome: 'not-fixed', attempts: 3 }, 30_000);
    const { contentType, text } = await metrics.exposition();

    expect(contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    const mentionFixed = { trigger: 'mention', outcome: 'fixed' };
    expect(sample(text, 'selfdebug_jobs_started_total', { trigger: 'mention' })).toBe(1);
    expect(sample(text, 'selfdebug_jobs_finished_total', mentionFixed)).toBe(1);
    expect(sample(text, 'selfdebug_jobs_finished_total')).toBe(2);
    expect(sample(text, 'selfdebug_job_attempts_total', mentionFixed)).toBe(2);
    expect(sample(text, 'selfdebug_job_attempts_total')).toBe(5);
    expect(sample(text, 'selfdebug_model_tokens_total', { trigger: 'mention' })).toBe(1920);
    expect(sample(text, 'selfdebug_model_cost_usd_total', { trigger: 'mention' })).toBeCloseTo(0.0042);
    expect(sample(text, 'selfdebug_job_duration_seconds_count', mentionFixed)).toBe(1);
    expect(sample(text, 'selfdebug_job_duration_seconds_sum', mentionFixed)).toBe(90);
    expect(sample(text, 'selfdebug_job_duration_seconds_bucket', { ...mentionFixed, le: '60' })).toBe(0);
    expect(sample(text, 'selfdebug_job_duration_seconds_bucket', { ...mentionFixed, le: '120' })).toBe(1);
    expect(sample(text, 'selfdebug_job_wait_seconds_sum', { trigger: 'mention' })).toBe(1.5);
  });

  it('leaves the wait out of a job taken again after a crash', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    metrics.jobStarted('review', null);
    const { text } = await metrics.exposition();
    expect(sample(text, 'selfdebug_jobs_started_total', { trigger: 'review' })).toBe(1);
    expect(sample(text, 'selfdebug_job_wait_seconds_count')).toBe(0);
  });

  it('counts sandbox commands, GitHub requests and webhook deliveries with bounded labels', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    metrics.sandboxCommand('setup', 'exited', 1200);
    metrics.sandboxCommand('run', 'timed-out', 5000);
    metrics.githubRequest('get', 200, { resource: 'core', remaining: 4999 });
    metrics.githubRequest('post', 'error', null);
    metrics.webhookReceived('issue_comment');
    metrics.webhookReceived('issue_comment');
    const { text } = await metrics.exposition();

    expect(sample(text, 'selfdebug_sandbox_command_seconds_count')).toBe(2);
    expect(sample(text, 'selfdebug_sandbox_command_seconds_sum', { end: 'timed-out' })).toBe(5);
    expect(sample(text, 'selfdebug_sandbox_command_seconds_sum', { phase: 'setup' })).toBe(1.2);
    expect(sample(text, 'selfdebug_github_requests_total', { method: 'GET', status: '200' })).toBe(1);
    expect(sample(text, 'selfdebug_github_requests_total', { method: 'POST', status: 'error' })).toBe(1);
    expect(sample(text, 'selfdebug_github_rate_limit_remaining', { resource: 'core' })).toBe(4999);
    expect(sample(text, 'selfdebug_webhook_deliveries_total', { event: 'issue_comment' })).toBe(2);
    // No label names a repository, an installation or a job: the series do not grow with them.
    const labels = new Set([...text.matchAll(/[{,](\w+)="/g)].map((match) => match[1]));
    const bounded = ['end', 'event', 'le', 'method', 'outcome', 'phase', 'resource', 'status', 'trigger'];
    expect(labels.size).toBeGreaterThan(0);
    for (const label of labels) expect(bounded).toContain(label);
  });

  it('has no rate-limit sample before GitHub has reported one (a bare gauge would say 0)', async () => {
    const { text } = await new PrometheusMetrics({ processMetrics: false }).exposition();
    expect(text).not.toMatch(/^selfdebug_github_rate_limit_remaining/m);
  });

  it('reads the queue depth at each scrape, and leaves it out while the queue does not answer', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    let depth: { waiting: number; running: number } | null = { waiting: 3, running: 1 };
    metrics.watchQueue(async () => {
      if (depth === null) throw new Error('connection refused');
      return depth;
    });
    const first = (await metrics.exposition()).text;
    expect(sample(first, 'selfdebug_queue_jobs', { state: 'waiting' })).toBe(3);
    expect(sample(first, 'selfdebug_queue_jobs', { state: 'running' })).toBe(1);

    depth = null;
    const second = (await metrics.exposition()).text;
    expect(second).not.toMatch(/^selfdebug_queue_jobs\{/m);
    expect(second).toContain('# TYPE selfdebug_jobs_finished_total counter');
  });

  it("adds Node's process metrics unless told not to", async () => {
    const { text } = await new PrometheusMetrics().exposition();
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
  });
});
