import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type { CiVerdict } from '../../ci-verdict/ci-verdict.js';
import { QueueError } from '../../errors/index.js';
import { describeOpenJob, jobRecord } from '../../queue/job-record.js';
import {
  issueNumberOf,
  type JobMatch,
  type JobRequest,
  repositoryKey,
  serialKeyOf,
  staleBranchOf,
} from '../../queue/job-request.js';
import {
  type HistoryQuery,
  type JobRecord,
  type JobResult,
  type JobStore,
  type Lease,
  type OpenJob,
  resultWithout,
  SPEND_LEDGER_MS,
  type StaleTarget,
  type StoreOptions,
} from '../../queue/job-store.js';
import { JobStoreBase } from '../../queue/job-store-base.js';
import { expiredRunEnd } from '../../queue/lease-rules.js';
import { watchFileChanges } from './file-change-signal.js';
import { type Statements, sqliteLease } from './sqlite-lease.js';
import { type JobRow, openTimesOf, SCHEMA, SCHEMA_VERSION, SQL } from './sqlite-schema.js';

/** How often claims prune history too (cancelled and abandoned jobs end there, not in complete). */
const PRUNE_EVERY_MS = 60_000;

/**
 * The embedded JobStore: one SQLite file, durable across restarts, with no
 * server to run. Made for one process, and safe for several on one host
 * (every claim is an immediate transaction; WAL lets readers go on). An
 * accepted job survives the process being killed at any moment; see
 * docs/queue.md for why `synchronous = NORMAL` rather than FULL.
 */
export class SqliteJobStore extends JobStoreBase implements JobStore {
  private readonly db: Database.Database;
  private readonly sql: Statements;
  private readonly unwatch: () => void;
  private lastPrune = 0;

  constructor(
    readonly path: string,
    options: StoreOptions = {},
  ) {
    super(options);
    try {
      this.db = new Database(path, { timeout: 10_000 });
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      const version = this.db.pragma('user_version', { simple: true }) as number;
      if (version > SCHEMA_VERSION)
        throw new QueueError(
          `The queue file ${path} was written by a newer selfdebug (schema ${version}); upgrade this one, or point SELFDEBUG_QUEUE_PATH elsewhere.`,
        );
      this.db.exec(SCHEMA);
      this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
    } catch (error) {
      if (error instanceof QueueError) throw error;
      throw new QueueError(
        `Could not open the queue file ${path}: ${String(error)}. Check that its folder exists and is writable.`,
        { cause: error },
      );
    }
    // Other processes' writes (the App enqueuing, a worker finishing) wake this one's workers at once.
    this.unwatch = watchFileChanges(path, () => this.signal.notify());
    this.sql = Object.fromEntries(
      Object.entries(SQL).map(([name, text]) => [name, this.db.prepare(text)]),
    ) as Statements;
  }

  async enqueue(request: JobRequest): Promise<{ accepted: boolean; jobId: string }> {
    const now = this.now();
    const keys = [`delivery:${request.deliveryId}`, `key:${request.dedupeKey}`];
    const result = this.db
      .transaction(() => {
        for (const key of keys) {
          const earlier = this.sql.findKey.get(key) as { job_id: string } | undefined;
          if (earlier) return { accepted: false, jobId: earlier.job_id };
        }
        for (const key of keys) this.sql.addKey.run(key, request.id, now);
        this.sql.insert.run({
          id: request.id,
          repository: repositoryKey(request.repository),
          issue_number: issueNumberOf(request),
          serial_key: serialKeyOf(request),
          stale_branch: staleBranchOf(request),
          head_sha: request.headSha,
          request: JSON.stringify(request),
          now,
        });
        return { accepted: true, jobId: request.id };
      })
      .immediate();
    if (result.accepted) this.signal.notify();
    return result;
  }

  async cancel(match: JobMatch, reason: string): Promise<number> {
    return this.cancelRows(
      () => this.sql.byIssue.all(match.repository.toLowerCase(), match.issueNumber) as JobRow[],
      reason,
    );
  }

  async cancelStale(target: StaleTarget, reason: string): Promise<number> {
    return this.cancelRows(
      () => this.sql.byBranch.all(target.repository.toLowerCase(), target.branch, target.sha) as JobRow[],
      reason,
    );
  }

  async latest(match: JobMatch): Promise<JobRequest | null> {
    const row = this.sql.latest.get(match.repository.toLowerCase(), match.issueNumber) as
      | { request: string }
      | undefined;
    return row ? (JSON.parse(row.request) as JobRequest) : null;
  }

  async claim(workerId: string): Promise<Lease | null> {
    const token = randomUUID();
    const row = this.db
      .transaction(() => {
        const now = this.now();
        for (const expired of this.sql.expired.all(now) as JobRow[]) {
          const end = expiredRunEnd({ ...expired, cancelReason: expired.cancel_reason }, this.maxRuns);
          if (end !== null) this.finishRow(expired, end, null);
        }
        const next = this.sql.next.get({ now }) as JobRow | undefined;
        if (!next) return null;
        this.sql.take.run({ id: next.id, token, owner: workerId, until: now + this.leaseMs, now });
        return { ...next, runs: next.runs + 1, started_at: next.started_at ?? now };
      })
      .immediate();
    this.prune();
    return row ? this.leaseOf(row, token) : null;
  }

  async history(query: HistoryQuery = {}): Promise<JobRecord[]> {
    const rows = this.sql.history.all({
      repository: query.repository?.toLowerCase() ?? null,
      limit: query.limit ?? 100,
    }) as { record: string }[];
    return rows.map((row) => JSON.parse(row.record) as JobRecord);
  }

  async counts(): Promise<{ waiting: number; running: number }> {
    const row = this.sql.counts.get() as { waiting: number | null; running: number | null };
    return { waiting: row.waiting ?? 0, running: row.running ?? 0 };
  }

  async openJobs(): Promise<OpenJob[]> {
    const rows = this.sql.open.all() as JobRow[];
    return rows.map((row) => describeOpenJob(JSON.parse(row.request) as JobRequest, openTimesOf(row)));
  }

  async spentUsd(installationId: number, sinceMs: number): Promise<number> {
    return (this.sql.spent.get(installationId, sinceMs) as { spent: number }).spent;
  }

  async recordCiVerdict(jobId: string, verdict: CiVerdict): Promise<boolean> {
    return this.sql.ciVerdict.run(JSON.stringify(verdict), jobId).changes === 1;
  }

  async pushedBy(repository: string, sha: string): Promise<JobRecord | null> {
    const row = this.sql.pushedBy.get(repository.toLowerCase(), sha) as { record: string } | undefined;
    return row ? (JSON.parse(row.record) as JobRecord) : null;
  }

  async awaitCiVerdict(jobId: string, untilMs: number | null): Promise<boolean> {
    return this.sql.awaitCiVerdict.run({ id: jobId, until: untilMs }).changes === 1;
  }

  async dueCiVerdicts(untilMs: number, limit: number): Promise<JobRecord[]> {
    const rows = this.sql.dueCiVerdicts.all({ until: untilMs, limit }) as { record: string }[];
    return rows.map((row) => JSON.parse(row.record) as JobRecord);
  }

  async close(): Promise<void> {
    this.unwatch();
    this.signal.notify();
    if (this.db.open) this.db.close();
  }

  private leaseOf(row: JobRow, token: string): Lease {
    return sqliteLease({
      db: this.db,
      sql: this.sql,
      row,
      token,
      leaseMs: this.leaseMs,
      now: this.now,
      complete: (result) => this.completeRow(row, token, result),
      notify: () => this.signal.notify(),
    });
  }

  /** Finishes a job under its lease; false when the lease was lost meanwhile. */
  private completeRow(row: JobRow, token: string, result: JobResult): boolean {
    const done = this.db.transaction(() => this.finishRow(row, result, token)).immediate();
    if (done) {
      this.signal.notify();
      this.prune(true);
    }
    return done;
  }

  private cancelRows(select: () => JobRow[], reason: string): number {
    const count = this.db
      .transaction(() => {
        const now = this.now();
        const rows = select();
        for (const row of rows) {
          if (row.state === 'waiting' || (row.lease_until ?? 0) < now)
            this.finishRow(row, resultWithout('cancelled', reason), null);
          else this.sql.flagCancel.run(reason, row.id);
        }
        return rows.length;
      })
      .immediate();
    if (count > 0) this.signal.notify();
    return count;
  }

  /** Ends a job with its record; `token` null ends it whoever held it (cancel, abandon). */
  private finishRow(row: JobRow, result: JobResult, token: string | null): boolean {
    const now = this.now();
    const request = JSON.parse(row.request) as JobRequest;
    const record = jobRecord(request, result, {
      enqueuedAt: row.enqueued_at,
      startedAt: row.started_at,
      finishedAt: now,
      runs: row.runs,
    });
    if (this.sql.finish.run({ id: row.id, token, now, record: JSON.stringify(record) }).changes !== 1)
      return false;
    if (result.costUsd > 0) this.sql.addSpend.run(row.id, request.installationId, now, result.costUsd);
    return true;
  }

  /** Drops history past the retention limits: after every completion, and now and then from claims. */
  private prune(always = false): void {
    const now = this.now();
    if (!always && now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    this.db
      .transaction(() => {
        this.sql.pruneOld.run(now - this.retention.maxAgeMs);
        this.sql.pruneMany.run(this.retention.maxRecords);
        this.sql.pruneKeys.run(now - this.retention.dedupeMs);
        this.sql.pruneSpend.run(now - SPEND_LEDGER_MS);
      })
      .immediate();
  }
}
