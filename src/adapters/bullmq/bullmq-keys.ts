import type { Redis } from 'ioredis';
import type { JobRequest } from '../../queue/job-request.js';
import { type JobRecord, type Retention, SPEND_LEDGER_MS } from '../../queue/job-store.js';
import { FINISH } from './redis-scripts.js';

/** An open job as kept beside BullMQ's copy, for cancel by issue or branch and for history. */
export interface OpenEntry {
  request: JobRequest;
  repository: string;
  issueNumber: number | null;
  serialKey: string;
  staleBranch: string | null;
  enqueuedAt: number;
}

/**
 * The Redis keys of one queue: BullMQ's own under `<prefix>:<queue>:`, and
 * the adapter's bookkeeping (redis-scripts.ts) under `<prefix>:<queue>:sd:`.
 * Not made for Redis Cluster: the scripts touch keys of several jobs at once.
 */
export class BullmqKeys {
  constructor(
    readonly base: string,
    private readonly host: string,
  ) {}

  key(name: string): string {
    return `${this.base}:sd:${name}`;
  }

  /** BullMQ's lock key for a job: its value is the lock token, which is our lease token. */
  lock(id: string): string {
    return `${this.base}:${id}:lock`;
  }

  get open(): string {
    return this.key('open');
  }

  meta(id: string): string {
    return this.key(`meta:${id}`);
  }

  checkpoints(id: string): string {
    return this.key(`checkpoints:${id}`);
  }

  serial(entry: { repository: string; serialKey: string }): string {
    return this.key(`serial:${entry.repository}|${entry.serialKey}`);
  }

  /** Container slots are counted per host: every worker sharing a Docker engine shares the cap. */
  get containers(): string {
    return this.key(`containers:${this.host}`);
  }

  /** An installation's spend ledger: finished jobs as `id|costUsd`, scored by when they finished. */
  spend(installationId: number): string {
    return this.key(`spend:${installationId}`);
  }

  latest(repository: string, issueNumber: number | null): string {
    return this.key(`latest:${repository}#${issueNumber}`);
  }

  /** Finished jobs' CI verdicts by job id, beside their records (bullmq-ci-verdicts.ts). */
  get ciVerdicts(): string {
    return this.key('ci-verdicts');
  }

  /** Finished jobs waiting for a CI verdict, scored by when the wait ends. */
  get ciWaits(): string {
    return this.key('ci-waits');
  }

  /** The job that pushed each fix, by `repository|sha`; `fix-keys` names each job's field there, for pruning. */
  get fixes(): string {
    return this.key('fixes');
  }

  get fixKeys(): string {
    return this.key('fix-keys');
  }

  /** Ends a job once, under `token` ('' whoever holds it): history record in, bookkeeping out. */
  async finish(
    redis: Redis,
    id: string,
    token: string,
    record: JobRecord,
    entry: OpenEntry,
    retention: Retention,
  ): Promise<boolean> {
    const reply = await FINISH.run(
      redis,
      [
        this.lock(id),
        this.open,
        this.meta(id),
        this.key(`done:${id}`),
        this.key('history'),
        this.key('records'),
        this.serial(entry),
        this.containers,
        this.checkpoints(id),
        this.spend(record.installationId),
        this.ciVerdicts,
        this.ciWaits,
        this.fixes,
        this.fixKeys,
      ],
      [
        id,
        token,
        JSON.stringify(record),
        Date.parse(record.finishedAt),
        retention.dedupeMs,
        retention.maxAgeMs,
        retention.maxRecords,
        record.costUsd,
        SPEND_LEDGER_MS,
        record.fixSha ? fixKey(record.repository, record.fixSha) : '',
      ],
    );
    return reply === 1;
  }
}

/** The field of `fixes` for a pushed commit: the repository in lower case, as every lookup spells it. */
export function fixKey(repository: string, sha: string): string {
  return `${repository.toLowerCase()}|${sha}`;
}
