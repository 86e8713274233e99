import type { OpenTimes } from '../../queue/job-record.js';

/**
 * The SQLite queue's tables. One row per job from enqueue to the end of its
 * retention; `state` moves waiting → running → done (and back to waiting on a
 * hand-back). A running row's lease is `lease_token` until `lease_until`;
 * every write a worker makes names the token, so a worker whose lease was
 * taken over changes nothing. Delivery ids and dedupe keys live in their own
 * table, so pruning old history does not forget them sooner than `dedupeMs`.
 * Finished jobs' costs live in `spend`, pruned by age only (SPEND_LEDGER_MS),
 * so the cost ceiling sees its whole period whatever the history keeps.
 * Version 2 added `spend`: an older selfdebug refuses the file rather than
 * finish jobs without recording what they cost. The pushed commit and the
 * wait for its CI verdict stay in the record's JSON, found through indexes
 * on those JSON fields: an older file gains them when opened, and records
 * written before still have their fix found, so no version was needed.
 */
export const SCHEMA_VERSION = 2;

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS jobs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  repository TEXT NOT NULL,
  issue_number INTEGER,
  serial_key TEXT NOT NULL,
  stale_branch TEXT,
  head_sha TEXT,
  request TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('waiting', 'running', 'done')),
  runs INTEGER NOT NULL DEFAULT 0,
  handbacks INTEGER NOT NULL DEFAULT 0,
  lease_token TEXT,
  lease_owner TEXT,
  lease_until INTEGER,
  container INTEGER NOT NULL DEFAULT 0,
  cancel_reason TEXT,
  checkpoints TEXT NOT NULL DEFAULT '{}',
  enqueued_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER,
  record TEXT
);
CREATE INDEX IF NOT EXISTS jobs_open ON jobs (state, seq) WHERE state <> 'done';
CREATE INDEX IF NOT EXISTS jobs_issue ON jobs (repository, issue_number, seq);
CREATE INDEX IF NOT EXISTS jobs_serial ON jobs (repository, serial_key) WHERE state = 'running';
CREATE INDEX IF NOT EXISTS jobs_finished ON jobs (finished_at) WHERE state = 'done';
CREATE INDEX IF NOT EXISTS jobs_fix ON jobs (repository, json_extract(record, '$.fixSha')) WHERE state = 'done';
CREATE INDEX IF NOT EXISTS jobs_ci_wait ON jobs (json_extract(record, '$.ciWaitUntil')) WHERE state = 'done';
CREATE TABLE IF NOT EXISTS dedupe (
  key TEXT PRIMARY KEY,
  job_id TEXT NOT NULL,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS dedupe_age ON dedupe (created_at);
CREATE TABLE IF NOT EXISTS spend (
  job_id TEXT PRIMARY KEY,
  installation_id INTEGER NOT NULL,
  at INTEGER NOT NULL,
  cost_usd REAL NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS spend_by_installation ON spend (installation_id, at);
`;

export interface JobRow {
  seq: number;
  id: string;
  repository: string;
  issue_number: number | null;
  serial_key: string;
  stale_branch: string | null;
  head_sha: string | null;
  request: string;
  state: 'waiting' | 'running' | 'done';
  runs: number;
  handbacks: number;
  lease_token: string | null;
  lease_owner: string | null;
  lease_until: number | null;
  container: number;
  cancel_reason: string | null;
  checkpoints: string;
  enqueued_at: number;
  started_at: number | null;
  finished_at: number | null;
  record: string | null;
}

/** The statements the store prepares once. Named parameters keep each call readable. */
export const SQL = {
  findKey: 'SELECT job_id FROM dedupe WHERE key = ?',
  addKey: 'INSERT INTO dedupe (key, job_id, created_at) VALUES (?, ?, ?)',
  insert: `INSERT INTO jobs (id, repository, issue_number, serial_key, stale_branch, head_sha, request, state, enqueued_at)
    VALUES (@id, @repository, @issue_number, @serial_key, @stale_branch, @head_sha, @request, 'waiting', @now)`,
  latest: 'SELECT request FROM jobs WHERE repository = ? AND issue_number = ? ORDER BY seq DESC LIMIT 1',
  expired: `SELECT * FROM jobs WHERE state = 'running' AND lease_until < ?`,
  next: `SELECT * FROM jobs AS j
    WHERE (j.state = 'waiting' OR (j.state = 'running' AND j.lease_until < @now))
      AND NOT EXISTS (SELECT 1 FROM jobs AS r
        WHERE r.state = 'running' AND r.lease_until >= @now AND r.repository = j.repository
          AND r.serial_key = j.serial_key AND r.id <> j.id)
    ORDER BY j.seq LIMIT 1`,
  take: `UPDATE jobs SET state = 'running', runs = runs + 1, lease_token = @token, lease_owner = @owner,
      lease_until = @until, container = 0, started_at = coalesce(started_at, @now)
    WHERE id = @id`,
  renew: `UPDATE jobs SET lease_until = @until WHERE id = @id AND lease_token = @token AND state = 'running'
    RETURNING cancel_reason`,
  checkpoints: `SELECT checkpoints FROM jobs WHERE id = ? AND lease_token = ? AND state = 'running'`,
  setCheckpoints: 'UPDATE jobs SET checkpoints = ? WHERE id = ? AND lease_token = ?',
  liveContainers: `SELECT count(*) AS live FROM jobs
    WHERE state = 'running' AND container = 1 AND lease_until >= ? AND id <> ?`,
  setContainer: `UPDATE jobs SET container = ? WHERE id = ? AND lease_token = ? AND state = 'running'`,
  finish: `UPDATE jobs SET state = 'done', finished_at = @now, record = @record, lease_token = NULL,
      lease_until = NULL, container = 0
    WHERE id = @id AND (@token IS NULL OR lease_token = @token) AND state <> 'done'`,
  release: `UPDATE jobs SET state = 'waiting', lease_token = NULL, lease_until = NULL, lease_owner = NULL,
      container = 0, handbacks = handbacks + 1
    WHERE id = ? AND lease_token = ? AND state = 'running'`,
  byIssue: `SELECT * FROM jobs WHERE state <> 'done' AND repository = ? AND issue_number = ? AND cancel_reason IS NULL`,
  byBranch: `SELECT * FROM jobs WHERE state <> 'done' AND repository = ? AND stale_branch = ? AND head_sha <> ?
      AND cancel_reason IS NULL`,
  flagCancel: 'UPDATE jobs SET cancel_reason = ? WHERE id = ?',
  history: `SELECT record FROM jobs WHERE state = 'done' AND (@repository IS NULL OR repository = @repository)
    ORDER BY finished_at DESC, seq DESC LIMIT @limit`,
  open: `SELECT * FROM jobs WHERE state <> 'done' ORDER BY seq`,
  addSpend: 'INSERT OR IGNORE INTO spend (job_id, installation_id, at, cost_usd) VALUES (?, ?, ?, ?)',
  spent: 'SELECT coalesce(sum(cost_usd), 0) AS spent FROM spend WHERE installation_id = ? AND at >= ?',
  pruneSpend: 'DELETE FROM spend WHERE at < ?',
  counts: `SELECT sum(state = 'waiting') AS waiting, sum(state = 'running') AS running FROM jobs WHERE state <> 'done'`,
  pruneOld: `DELETE FROM jobs WHERE state = 'done' AND finished_at < ?`,
  pruneMany: `DELETE FROM jobs WHERE state = 'done' AND seq <= (
    SELECT seq FROM jobs WHERE state = 'done' ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
  pruneKeys: 'DELETE FROM dedupe WHERE created_at < ?',
  // The first verdict stands: a second webhook or a timeout that lost the race changes nothing.
  ciVerdict: `UPDATE jobs SET record = json_remove(json_set(record, '$.ciVerdict', json(?)), '$.ciWaitUntil')
    WHERE id = ? AND state = 'done' AND json_type(record, '$.ciVerdict') IS NULL`,
  // The expressions match the indexes jobs_fix and jobs_ci_wait word for word, so SQLite uses them.
  pushedBy: `SELECT record FROM jobs WHERE state = 'done' AND repository = ?
      AND json_extract(record, '$.fixSha') = ? ORDER BY seq DESC LIMIT 1`,
  awaitCiVerdict: `UPDATE jobs SET record = CASE WHEN @until IS NULL THEN json_remove(record, '$.ciWaitUntil')
      ELSE json_set(record, '$.ciWaitUntil', @until) END
    WHERE id = @id AND state = 'done' AND json_type(record, '$.ciVerdict') IS NULL`,
  dueCiVerdicts: `SELECT record FROM jobs WHERE state = 'done' AND json_extract(record, '$.ciWaitUntil') <= @until
      AND json_type(record, '$.ciVerdict') IS NULL
    ORDER BY json_extract(record, '$.ciWaitUntil') LIMIT @limit`,
} as const;

/** A waiting or running row's state and times, as JobStore.openJobs reports them. */
export function openTimesOf(row: JobRow): OpenTimes {
  const state = row.state === 'running' ? 'running' : 'waiting';
  return { state, runs: row.runs, enqueuedAt: row.enqueued_at, startedAt: row.started_at };
}
