import { type CiVerdict, decideCiVerdict } from '../ci-verdict/ci-verdict.js';
import type { CiHost } from '../code-host/code-host.js';
import { readRepoConfig } from '../config/repo-config.js';
import { ciVerdictWaitMs } from '../config/repo-config-mappers.js';
import type { Metrics } from '../metrics/metrics.js';
import type { ClaimedJob, JobRecord, JobResult, JobStore } from '../queue/job-store.js';
import { Redactor } from '../report/index.js';
import type { Logger } from '../util/logger.js';
import type { Timers } from '../util/timers.js';
import { writeCiVerdict } from './ci-verdict-writer.js';
import { loggedWrite } from './logged-write.js';

/** A commit the App pushed, in the repository and installation it was pushed to. */
export interface PushedFix {
  installationId: number;
  /** `owner/name`. */
  repository: string;
  sha: string;
}

export interface CiVerdictFollowerDependencies {
  store: Pick<JobStore, 'history' | 'recordCiVerdict' | 'pushedBy' | 'awaitCiVerdict' | 'dueCiVerdicts'>;
  /** The installation's CiHost for one repository. */
  hostFor(fix: PushedFix): Promise<CiHost>;
  metrics: Metrics;
  /** What paces the sweep for waits that are over; a test's clock in tests (test/helpers/manual-timers.ts). */
  timers: Timers;
  /** The clock waits are set and ended by, in epoch ms: the same one in every process that shares the store. */
  now: () => number;
  logger: Logger;
  /** How often a started follower looks for waits that are over; a minute unless a test says otherwise. */
  sweepMs?: number;
}

/** The longest wait `ci_verdict.wait_minutes` allows: a wait set before the repository's setting is read. */
export const LONGEST_WAIT_MS = 1440 * 60_000;
/** How long a fix whose judging failed at its wait's end (GitHub unreachable, say) waits before the next try. */
export const RETRY_MS = 10 * 60_000;
const SWEEP_MS = 60_000;
/** Fixes judged per sweep at most; the rest wait for the next. */
const SWEEP_BATCH = 50;
/** How far back the history is searched for the other rounds of a fix's pull request. */
const ROUNDS_REACH = 200;

/** How judging a fix ended: still open (and how long its repository waits), settled, not followed, or failed. */
type Judgement = { state: 'open'; waitMs: number } | { state: 'settled' | 'off' | 'failed' };

/**
 * Follows the repository's own CI on each fix the App pushes
 * (docs/ci-verdict.md): told when a job recorded a pushed fix, and when a
 * workflow run on one of the App's branches completes. Each time it asks
 * GitHub for the commit's runs and lets decideCiVerdict judge; once a
 * verdict is decided it is recorded on the job that pushed the commit,
 * first verdict standing, and written out. The wait's end is kept on that
 * record, and a started follower (every worker) sweeps for waits that are
 * over, so a wait outlives the worker that began it.
 */
export class CiVerdictFollower {
  private sweepTimer: unknown = null;
  /** Counts start() calls while started: a sweep of an earlier start that ends late arms no second timer. */
  private startedAs: number | null = null;
  private starts = 0;

  constructor(private readonly dependencies: CiVerdictFollowerDependencies) {}

  /** The worker's `onRecorded`: a job whose record says it pushed a fix starts the following. */
  readonly onRecorded = (job: ClaimedJob, result: JobResult): void => {
    if (!result.fixSha) return;
    const { installationId, repository } = job.request;
    const fix = { installationId, repository: `${repository.owner}/${repository.name}`, sha: result.fixSha };
    void this.fixPushed(fix);
  };

  /** A job recorded a pushed fix: judged at once (a repository without CI), else when CI finishes or the wait ends. */
  async fixPushed(fix: PushedFix): Promise<void> {
    const { store, now } = this.dependencies;
    await this.guarded(fix, async () => {
      const record = await store.pushedBy(fix.repository, fix.sha);
      if (record === null || record.ciVerdict !== undefined) return;
      // Kept before GitHub is asked: should this worker stop now, another ends the wait by then at the latest.
      await store.awaitCiVerdict(record.id, now() + LONGEST_WAIT_MS);
      const judged = await this.judge(fix, record, false);
      if (judged.state === 'open') await store.awaitCiVerdict(record.id, now() + judged.waitMs);
      if (judged.state === 'off') await store.awaitCiVerdict(record.id, null);
    });
  }

  /** A workflow run on one of the App's branches completed: its commit may now have its verdict. */
  async runCompleted(fix: PushedFix): Promise<void> {
    await this.guarded(fix, async () => {
      const record = await this.dependencies.store.pushedBy(fix.repository, fix.sha);
      if (record !== null && record.ciVerdict === undefined) await this.judge(fix, record, false);
    });
  }

  /** Sweeps now, then every `sweepMs` until stop(): every fix whose wait is over gets its verdict. */
  start(): this {
    if (this.startedAs !== null) return this;
    this.startedAs = ++this.starts;
    void this.sweep(this.startedAs);
    return this;
  }

  stop(): void {
    this.startedAs = null;
    if (this.sweepTimer !== null) this.dependencies.timers.clearTimeout(this.sweepTimer);
    this.sweepTimer = null;
  }

  /**
   * Judges the fixes whose wait is over. Several workers may sweep the same
   * fix at once; only the one whose recordCiVerdict wins writes anything.
   */
  private async sweep(start: number): Promise<void> {
    const { store, now, timers, logger } = this.dependencies;
    try {
      for (const record of await store.dueCiVerdicts(now(), SWEEP_BATCH)) await this.waitEnded(record);
    } catch (error) {
      logger.warn({ error: String(error) }, 'could not look for CI waits that are over');
    } finally {
      if (this.startedAs === start)
        this.sweepTimer = timers.setTimeout(
          () => void this.sweep(start),
          this.dependencies.sweepMs ?? SWEEP_MS,
        );
    }
  }

  private async waitEnded(record: JobRecord): Promise<void> {
    const { store, now } = this.dependencies;
    const { installationId, repository, fixSha } = record;
    const fix = { installationId, repository, sha: fixSha ?? '' };
    const judged = await this.judge(fix, record, true);
    if (judged.state === 'failed') await store.awaitCiVerdict(record.id, now() + RETRY_MS);
    if (judged.state === 'off') await store.awaitCiVerdict(record.id, null);
  }

  /** Judges `fix`, pushed by `record`: recorded and written once decided. */
  private async judge(fix: PushedFix, record: JobRecord, timedOut: boolean): Promise<Judgement> {
    try {
      const host = await this.dependencies.hostFor(fix);
      const config = await readRepoConfig(host);
      const waitMs = config.ok ? ciVerdictWaitMs(config.config) : null;
      if (waitMs === null) return { state: 'off' };
      const verdict = decideCiVerdict(fix.sha, await host.ciRuns(fix.sha), { timedOut });
      if (verdict === null) return { state: 'open', waitMs };
      await this.record(host, record, verdict);
      return { state: 'settled' };
    } catch (error) {
      this.warn(fix, error);
      return { state: 'failed' };
    }
  }

  private async guarded(fix: PushedFix, action: () => Promise<void>): Promise<void> {
    try {
      await action();
    } catch (error) {
      this.warn(fix, error);
    }
  }

  private warn(fix: PushedFix, error: unknown): void {
    this.dependencies.logger.warn(
      { repository: fix.repository, sha: fix.sha, error: String(error) },
      'could not judge CI',
    );
  }

  /** The first verdict stands: a second webhook, or a sweep that lost the race, writes nothing. */
  private async record(host: CiHost, record: JobRecord, verdict: CiVerdict): Promise<void> {
    const { store, metrics, logger } = this.dependencies;
    if (!(await store.recordCiVerdict(record.id, verdict))) return;
    metrics.ciVerdict(verdict.verdict);
    logger.info({ job: record.id, sha: verdict.sha, verdict: verdict.verdict }, 'CI verdict recorded');
    await writeCiVerdict(host, {
      pullNumber: numberIn(record.links.pullRequest, /\/pull\/(\d+)(?:$|[/?#])/),
      commentId: numberIn(record.links.statusComment, /#issuecomment-(\d+)$/),
      verdict,
      rounds: await this.rounds(record, verdict),
      redactor: new Redactor([]),
      write: loggedWrite(logger, record.id),
    });
  }

  /** Every verdict this pull request's rounds have had, this one included, oldest first. */
  private async rounds(record: JobRecord, verdict: CiVerdict): Promise<CiVerdict[]> {
    const history = await this.dependencies.store.history({
      repository: record.repository,
      limit: ROUNDS_REACH,
    });
    return [...history.filter((other) => other.id !== record.id), { ...record, ciVerdict: verdict }]
      .filter(
        (other) => other.ciVerdict !== undefined && other.links.pullRequest === record.links.pullRequest,
      )
      .sort((left, right) => left.finishedAt.localeCompare(right.finishedAt))
      .map((other) => other.ciVerdict!);
  }
}

function numberIn(url: string | null, pattern: RegExp): number | null {
  const found = url === null ? null : pattern.exec(url);
  return found ? Number(found[1]) : null;
}
