import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { CiVerdictKind } from '../../ci-verdict/ci-verdict.js';
import type { Metrics, RateLimit, SandboxPhase } from '../../metrics/metrics.js';
import type { JobTrigger } from '../../queue/job-request.js';
import type { JobResult } from '../../queue/job-store.js';
import type { ExecEnd } from '../../sandbox/exec-result.js';

/** Jobs waiting and running, read at each scrape (the App's store; a worker leaves it out). */
export type QueueDepth = () => Promise<{ waiting: number; running: number }>;

export interface PrometheusOptions {
  /** Node's own metrics (CPU, memory, event loop lag); off in unit tests that compare whole texts. */
  processMetrics?: boolean;
}

const SECONDS = [0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600];

/**
 * The Metrics port in Prometheus' text format, on a registry of its own
 * (prom-client's global one would mix in whatever else the process loaded).
 * Labels are kept to trigger, outcome, sandbox end, HTTP method and status
 * and webhook event: each a short fixed list. No repository label: an App
 * installed on every repository of an organisation would grow one series per
 * repository and label pair without bound; the job history and the per-job
 * logs (`repository` field) answer per-repository questions instead.
 */
export class PrometheusMetrics implements Metrics {
  readonly registry = new Registry();
  private readonly jobsStarted = this.counter('selfdebug_jobs_started_total', 'Jobs a worker took', [
    'trigger',
  ]);
  private readonly jobsFinished = this.counter('selfdebug_jobs_finished_total', 'Jobs recorded as finished', [
    'trigger',
    'outcome',
  ]);
  private readonly attempts = this.counter('selfdebug_job_attempts_total', 'Loop attempts of finished jobs', [
    'trigger',
    'outcome',
  ]);
  private readonly tokens = this.counter('selfdebug_model_tokens_total', 'Model tokens of finished jobs', [
    'trigger',
  ]);
  private readonly cost = this.counter('selfdebug_model_cost_usd_total', 'Model cost of finished jobs, USD', [
    'trigger',
  ]);
  private readonly duration = this.histogram('selfdebug_job_duration_seconds', 'From claim to completion', [
    'trigger',
    'outcome',
  ]);
  private readonly wait = this.histogram('selfdebug_job_wait_seconds', 'From enqueue to first claim', [
    'trigger',
  ]);
  private readonly sandbox = this.histogram(
    'selfdebug_sandbox_command_seconds',
    'Commands run in sandboxes: setup commands, the reproduction and attempts',
    ['phase', 'end'],
  );
  private readonly github = this.counter('selfdebug_github_requests_total', 'GitHub API requests', [
    'method',
    'status',
  ]);
  private readonly rateLimit = new Gauge({
    name: 'selfdebug_github_rate_limit_remaining',
    // By GitHub's resource (core, search, graphql, …), not by installation: installations are as unbounded as
    // repositories. The label also keeps the series absent until GitHub has told (a bare gauge would say 0).
    help: 'x-ratelimit-remaining of the latest GitHub answer that carried one, by x-ratelimit-resource',
    labelNames: ['resource'],
    registers: [this.registry],
  });
  private readonly webhooks = this.counter(
    'selfdebug_webhook_deliveries_total',
    'Verified webhook deliveries',
    ['event'],
  );
  private readonly ciVerdicts = this.counter(
    'selfdebug_fix_ci_verdicts_total',
    "Fixes the App pushed, by the verdict of the repository's own CI on them",
    ['verdict'],
  );

  constructor(options: PrometheusOptions = {}) {
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** The text a scrape gets, and its Content-Type. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  jobStarted(trigger: JobTrigger['kind'], waitMs: number | null): void {
    this.jobsStarted.inc({ trigger });
    if (waitMs !== null) this.wait.observe({ trigger }, waitMs / 1000);
  }

  jobFinished(trigger: JobTrigger['kind'], result: JobResult, durationMs: number): void {
    const { outcome } = result;
    this.jobsFinished.inc({ trigger, outcome });
    this.attempts.inc({ trigger, outcome }, result.attempts);
    this.tokens.inc({ trigger }, result.tokens);
    this.cost.inc({ trigger }, result.costUsd);
    this.duration.observe({ trigger, outcome }, durationMs / 1000);
  }

  sandboxCommand(phase: SandboxPhase, end: ExecEnd, durationMs: number): void {
    this.sandbox.observe({ phase, end }, durationMs / 1000);
  }

  githubRequest(method: string, status: number | 'error', rateLimit: RateLimit | null): void {
    this.github.inc({ method: method.toUpperCase(), status: String(status) });
    if (rateLimit !== null) this.rateLimit.set({ resource: rateLimit.resource }, rateLimit.remaining);
  }

  webhookReceived(event: string): void {
    this.webhooks.inc({ event });
  }

  ciVerdict(verdict: CiVerdictKind): void {
    this.ciVerdicts.inc({ verdict });
  }

  /**
   * Exports the queue's depth, read at each scrape. Only the App calls this:
   * every worker would report the same shared queue and sums would count it
   * once per worker.
   */
  watchQueue(depth: QueueDepth): void {
    new Gauge({
      name: 'selfdebug_queue_jobs',
      help: 'Jobs not finished yet, by state (read from the queue at each scrape)',
      labelNames: ['state'],
      registers: [this.registry],
      async collect() {
        // A queue that does not answer leaves the gauge empty (readiness says why); the rest still scrapes.
        const counts = await depth().catch(() => null);
        this.reset();
        if (counts === null) return;
        this.set({ state: 'waiting' }, counts.waiting);
        this.set({ state: 'running' }, counts.running);
      },
    });
  }

  private counter<L extends string>(name: string, help: string, labelNames: L[]): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  private histogram<L extends string>(name: string, help: string, labelNames: L[]): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets: SECONDS, registers: [this.registry] });
  }
}
