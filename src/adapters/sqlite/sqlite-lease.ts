import type Database from 'better-sqlite3';
import type { JobRequest } from '../../queue/job-request.js';
import type { JobResult, Lease, LeaseStatus } from '../../queue/job-store.js';
import { leaseStatusOf } from '../../queue/lease-rules.js';
import type { JobRow, SQL } from './sqlite-schema.js';

export type Statements = { [K in keyof typeof SQL]: Database.Statement };

export interface SqliteLeaseParts {
  db: Database.Database;
  sql: Statements;
  /** The claimed row, as the claim left it. */
  row: JobRow;
  token: string;
  leaseMs: number;
  now(): number;
  /** Finishes the job under this lease and stores its record; false when the lease was lost. */
  complete(result: JobResult): boolean;
  /** Wakes this process's workers (a container slot or a branch may be free). */
  notify(): void;
}

/**
 * A claim on a SQLite job row: the row's token is the fence, and every step
 * is one statement (or one immediate transaction) that checks it.
 */
export function sqliteLease(parts: SqliteLeaseParts): Lease {
  const { sql, row, token, notify } = parts;
  const id = row.id;
  return {
    job: {
      request: JSON.parse(row.request) as JobRequest,
      run: row.runs,
      checkpoints: JSON.parse(row.checkpoints) as Record<string, string>,
    },
    async renew(): Promise<LeaseStatus> {
      const renewed = sql.renew.get({ id, token, until: parts.now() + parts.leaseMs }) as
        | { cancel_reason: string | null }
        | undefined;
      return renewed ? leaseStatusOf(renewed.cancel_reason) : { state: 'lost' };
    },
    async checkpoint(key, value) {
      addCheckpoint(parts, key, value);
    },
    async acquireContainer(max) {
      return takeContainerSlot(parts, max);
    },
    async releaseContainer() {
      sql.setContainer.run(0, id, token);
      notify();
    },
    async complete(result: JobResult) {
      return parts.complete(result);
    },
    async release() {
      if (sql.release.run(id, token).changes === 1) notify();
    },
  };
}

/** Records a finished step in the job's checkpoints, if the token still holds its lease. */
function addCheckpoint({ db, sql, row, token }: SqliteLeaseParts, key: string, value: string): void {
  db.transaction(() => {
    const current = sql.checkpoints.get(row.id, token) as { checkpoints: string } | undefined;
    if (!current) return;
    const merged = { ...(JSON.parse(current.checkpoints) as Record<string, string>), [key]: value };
    sql.setCheckpoints.run(JSON.stringify(merged), row.id, token);
  }).immediate();
}

/** Takes a container slot for the job when fewer than `max` live leases hold one. */
function takeContainerSlot({ db, sql, row, token, now }: SqliteLeaseParts, max: number): boolean {
  return db
    .transaction(() => {
      const { live } = sql.liveContainers.get(now(), row.id) as { live: number };
      return live < max && sql.setContainer.run(1, row.id, token).changes === 1;
    })
    .immediate();
}
