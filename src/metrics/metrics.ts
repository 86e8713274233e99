import type { CiVerdictKind } from '../ci-verdict/ci-verdict.js';
import type { JobTrigger } from '../queue/job-request.js';
import type { JobResult } from '../queue/job-store.js';
import type { ExecEnd } from '../sandbox/exec-result.js';

/**
 * The Metrics port: what the App and `selfdebug worker` tell an operator's
 * monitoring, in the words of the job and not of a metrics library. The
 * Prometheus adapter (src/adapters/prometheus/) implements it; the worker,
 * the sandbox and GitHub wrappers of src/compose call it. Every label is
 * drawn from a short fixed list (triggers, outcomes, HTTP methods and
 * status codes, webhook event names) so the number of series stays small
 * however many repositories or jobs there are.
 */
export interface Metrics {
  /** A worker took a job; `waitMs` from enqueue to this claim, for the job's first run only. */
  jobStarted(trigger: JobTrigger['kind'], waitMs: number | null): void;
  /** A job's record was stored; `durationMs` is this run's, from claim to completion. */
  jobFinished(trigger: JobTrigger['kind'], result: JobResult, durationMs: number): void;
  /** One command ran in a sandbox: `setup` prepared its environment; `run` is the reproduction or an attempt's. */
  sandboxCommand(phase: SandboxPhase, end: ExecEnd, durationMs: number): void;
  /** One GitHub API request and the rate limit it reported (null when the answer had none). */
  githubRequest(method: string, status: number | 'error', rateLimit: RateLimit | null): void;
  /** A verified webhook delivery, by event name (`issue_comment`, `workflow_run`, …). */
  webhookReceived(event: string): void;
  /** The repository's own CI judged a fix the App pushed (counted once per fix, docs/ci-verdict.md). */
  ciVerdict(verdict: CiVerdictKind): void;
}

export type SandboxPhase = 'setup' | 'run';

/** GitHub's x-ratelimit-remaining for the x-ratelimit-resource (`core`, `search`, `graphql`, …) it names. */
export interface RateLimit {
  resource: string;
  remaining: number;
}

/** For processes and tests that export nothing. */
export const noMetrics: Metrics = {
  jobStarted() {},
  jobFinished() {},
  sandboxCommand() {},
  githubRequest() {},
  webhookReceived() {},
  ciVerdict() {},
};
