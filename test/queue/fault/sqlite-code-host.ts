import { Readable } from 'node:stream';
import Database from 'better-sqlite3';
import type {
  CheckRunUpdate,
  CodeHost,
  Permission,
  PostedComment,
  PullRequestDetails,
  PullRequestRef,
  WorkflowJob,
} from '../../../src/code-host/code-host.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS comments (id INTEGER PRIMARY KEY AUTOINCREMENT, issue INTEGER NOT NULL, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pulls (number INTEGER PRIMARY KEY AUTOINCREMENT, head TEXT NOT NULL, base TEXT NOT NULL,
  title TEXT NOT NULL, body TEXT NOT NULL, draft INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS check_runs (id INTEGER PRIMARY KEY AUTOINCREMENT, head_sha TEXT NOT NULL, state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

/**
 * A CodeHost kept in a SQLite file, so worker processes that are killed and
 * restarted share one "GitHub" and the test can count what was posted.
 * Upserts by marker are transactions, as GitHub's list-then-edit is not, so
 * any duplicate the test finds comes from the job, not from this fake.
 */
export class SqliteCodeHost implements CodeHost {
  private readonly db: Database.Database;

  constructor(path: string) {
    this.db = new Database(path, { timeout: 10_000 });
    this.db.pragma('journal_mode = WAL');
    this.db.exec(SCHEMA);
  }

  setSetting(key: string, value: unknown): void {
    this.db
      .prepare('INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)')
      .run(key, JSON.stringify(value));
  }

  private setting<T>(key: string): T | null {
    const row = this.db.prepare('SELECT value FROM settings WHERE key = ?').get(key) as
      | { value: string }
      | undefined;
    return row ? (JSON.parse(row.value) as T) : null;
  }

  comments(): { id: number; issue: number; body: string }[] {
    return this.db.prepare('SELECT * FROM comments ORDER BY id').all() as {
      id: number;
      issue: number;
      body: string;
    }[];
  }

  pulls(): { number: number; head: string; base: string; title: string }[] {
    return this.db.prepare('SELECT * FROM pulls ORDER BY number').all() as {
      number: number;
      head: string;
      base: string;
      title: string;
    }[];
  }

  checkRuns(): { id: number; head_sha: string; state: string }[] {
    return this.db.prepare('SELECT * FROM check_runs ORDER BY id').all() as {
      id: number;
      head_sha: string;
      state: string;
    }[];
  }

  close(): void {
    this.db.close();
  }

  async upsertComment(issueNumber: number, marker: string, body: string): Promise<PostedComment> {
    const id = this.db
      .transaction(() => {
        const existing = this.db
          .prepare('SELECT id FROM comments WHERE issue = ? AND instr(body, ?) > 0')
          .get(issueNumber, marker) as { id: number } | undefined;
        if (existing) {
          this.db.prepare('UPDATE comments SET body = ? WHERE id = ?').run(body, existing.id);
          return existing.id;
        }
        return Number(
          this.db.prepare('INSERT INTO comments (issue, body) VALUES (?, ?)').run(issueNumber, body)
            .lastInsertRowid,
        );
      })
      .immediate();
    return { id, url: `https://github.com/octo/app/issues/${issueNumber}#issuecomment-${id}` };
  }

  async createComment(issueNumber: number, body: string): Promise<PostedComment> {
    const id = Number(
      this.db.prepare('INSERT INTO comments (issue, body) VALUES (?, ?)').run(issueNumber, body)
        .lastInsertRowid,
    );
    return { id, url: `https://github.com/octo/app/issues/${issueNumber}#issuecomment-${id}` };
  }

  async react(): Promise<void> {}

  async permissionOf(): Promise<Permission> {
    return 'write';
  }

  async branchHead(branch: string): Promise<string> {
    const sha = this.setting<string>(`branch:${branch}`);
    if (!sha) throw new Error(`no branch ${branch}`);
    return sha;
  }

  async pullRequest(number: number): Promise<PullRequestDetails> {
    const row = this.db.prepare('SELECT * FROM pulls WHERE number = ?').get(number) as
      | { number: number; head: string; base: string; draft: number }
      | undefined;
    if (!row) throw new Error(`no pull request ${number}`);
    return { ...this.ref(row), headSha: '', headRepository: 'octo/app', base: row.base };
  }

  async reviewComments(): Promise<{ path: string; line: number | null; body: string }[]> {
    return [];
  }

  async addLabels(): Promise<void> {}

  async repoConfigFile(): Promise<unknown> {
    return this.setting('config');
  }

  async findPullRequest(head: string): Promise<PullRequestRef | null> {
    const row = this.db.prepare('SELECT * FROM pulls WHERE head = ?').get(head) as
      | { number: number; head: string; draft: number }
      | undefined;
    return row ? this.ref(row) : null;
  }

  async createPullRequest(request: {
    title: string;
    body: string;
    head: string;
    base: string;
    draft: boolean;
  }) {
    const number = Number(
      this.db
        .prepare('INSERT INTO pulls (head, base, title, body, draft) VALUES (?, ?, ?, ?, ?)')
        .run(request.head, request.base, request.title, request.body, request.draft ? 1 : 0).lastInsertRowid,
    );
    return this.ref({ number, head: request.head, draft: request.draft ? 1 : 0 });
  }

  async updatePullRequest(): Promise<void> {}

  async createCheckRun(request: { name: string; headSha: string } & CheckRunUpdate) {
    const id = Number(
      this.db
        .prepare('INSERT INTO check_runs (head_sha, state) VALUES (?, ?)')
        .run(request.headSha, request.status ?? 'queued').lastInsertRowid,
    );
    return { id, url: `https://github.com/octo/app/runs/${id}` };
  }

  async updateCheckRun(id: number, update: CheckRunUpdate): Promise<void> {
    if (update.status) this.db.prepare('UPDATE check_runs SET state = ? WHERE id = ?').run(update.status, id);
  }

  async failedJobs(): Promise<WorkflowJob[]> {
    return [];
  }

  async jobLog(): Promise<Readable> {
    return Readable.from(['']);
  }

  async fileContent(): Promise<string | null> {
    return null;
  }

  private ref(row: { number: number; head: string; draft: number }): PullRequestRef {
    return {
      number: row.number,
      url: `https://github.com/octo/app/pull/${row.number}`,
      head: row.head,
      draft: row.draft === 1,
    };
  }
}
