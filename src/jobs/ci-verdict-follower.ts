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
  store: Pick<JobStore, 'history' | 'recordCiVerdict'>;
  /** The installation's CiHost for one repository. */
  hostFor(fix: PushedFix): Promise<CiHost>;
  metrics: Metrics;
  /** The wait's end; a test's clock in tests (test/helpers/manual-timers.ts). */
  timers: Timers;
  logger: Logger;
}

/** How far back a repository's history is searched for the job that pushed a commit. */
const HISTORY_REACH = 200;

/**
 * Follows the repository's own CI on each fix the App pushes
 * (docs/ci-verdict.md): told when a job recorded a pushed fix, and when a
 * workflow run on one of the App's branches completes. Each time it asks
 * GitHub for the commit's runs and lets decideCiVerdict judge; once a
 * verdict is decided (or the repository's wait is over) it is recorded on
 * the job that pushed the commit, first verdict standing, and written out.
 */
export class CiVerdictFollower {
  constructor(private readonly dependencies: CiVerdictFollowerDependencies) {}

  /** The worker's `onRecorded`: a job whose record says it pushed a fix starts the following. */
  readonly onRecorded = (job: ClaimedJob, result: JobResult): void => {
    if (!result.fixSha) return;
    const { installationId, repository } = job.request;
    const fix = { installationId, repository: `${repository.owner}/${repository.name}`, sha: result.fixSha };
    void this.fixPushed(fix);
  };

  /** A job recorded a pushed fix: judged at once (a repository without CI), else again when the wait ends. */
  async fixPushed(fix: PushedFix): Promise<void> {
    const waitMs = await this.judge(fix, false);
    if (waitMs === null) return;
    this.dependencies.timers.setTimeout(() => void this.judge(fix, true), waitMs);
  }

  /** A workflow run on one of the App's branches completed: its commit may now have its verdict. */
  async runCompleted(fix: PushedFix): Promise<void> {
    await this.judge(fix, false);
  }

  /** Judges `fix` if a job of ours pushed it and has no verdict yet; the wait still to come when it stays open. */
  private async judge(fix: PushedFix, timedOut: boolean): Promise<number | null> {
    const { logger } = this.dependencies;
    try {
      const record = await this.pushedBy(fix);
      if (record === undefined || record.ciVerdict !== undefined) return null;
      const host = await this.dependencies.hostFor(fix);
      const config = await readRepoConfig(host);
      const waitMs = config.ok ? ciVerdictWaitMs(config.config) : null;
      if (waitMs === null) return null;
      const verdict = decideCiVerdict(fix.sha, await host.ciRuns(fix.sha), { timedOut });
      if (verdict === null) return waitMs;
      await this.record(host, record, verdict);
      return null;
    } catch (error) {
      logger.warn({ repository: fix.repository, sha: fix.sha, error: String(error) }, 'could not judge CI');
      return null;
    }
  }

  private async pushedBy(fix: PushedFix): Promise<JobRecord | undefined> {
    const history = await this.dependencies.store.history({
      repository: fix.repository,
      limit: HISTORY_REACH,
    });
    return history.find((record) => record.fixSha === fix.sha);
  }

  /** The first verdict stands: a second webhook, or a timeout that lost the race, writes nothing. */
  private async record(host: CiHost, record: JobRecord, verdict: CiVerdict): Promise<void> {
    const { store, metrics, logger } = this.dependencies;
    if (!(await store.recordCiVerdict(record.id, verdict))) return;
    metrics.ciVerdict(verdict.verdict);
    logger.info({ job: record.id, sha: verdict.sha, verdict: verdict.verdict }, 'CI verdict recorded');
    // Every verdict this pull request's rounds have had, this one included, oldest first.
    const rounds = (await store.history({ repository: record.repository, limit: HISTORY_REACH }))
      .filter(
        (other) => other.ciVerdict !== undefined && other.links.pullRequest === record.links.pullRequest,
      )
      .sort((left, right) => left.finishedAt.localeCompare(right.finishedAt))
      .map((other) => other.ciVerdict!);
    await writeCiVerdict(host, {
      pullNumber: numberIn(record.links.pullRequest, /\/pull\/(\d+)(?:$|[/?#])/),
      commentId: numberIn(record.links.statusComment, /#issuecomment-(\d+)$/),
      verdict,
      rounds: rounds.length > 0 ? rounds : [verdict],
      redactor: new Redactor([]),
      write: loggedWrite(logger, record.id),
    });
  }
}

function numberIn(url: string | null, pattern: RegExp): number | null {
  const found = url === null ? null : pattern.exec(url);
  return found ? Number(found[1]) : null;
}
