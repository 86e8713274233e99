import { Readable } from 'node:stream';
import Database from 'better-sqlite3';
import type {
  CheckRunUpdate,
  CodeHost,
  Permission,
  PostedComment,
  PullRequestDetails,
  PullRequestRef,
  Reaction,
  WorkflowJob,
} from '../../../src/code-host/code-host.js';
import { GitHubApiError, GitHubNotFoundError } from '../../../src/errors/github-errors.js';
import {
  applyCheckRunUpdate,
  refuseLongBody,
  refuseWithheld,
  type StoredCheckRun,
} from '../../fakes/fake-code-host.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS comments (id INTEGER PRIMARY KEY AUTOINCREMENT, issue INTEGER NOT NULL, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pulls (number INTEGER PRIMARY KEY AUTOINCREMENT, head TEXT NOT NULL, base TEXT NOT NULL,
  title TEXT NOT NULL, body TEXT NOT NULL, draft INTEGER NOT NULL, head_sha TEXT NOT NULL, labels TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS check_runs (id INTEGER PRIMARY KEY AUTOINCREMENT, run TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS reactions (id INTEGER PRIMARY KEY AUTOINCREMENT, target TEXT NOT NULL, content TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (sha TEXT NOT NULL, path TEXT NOT NULL, content TEXT NOT NULL, PRIMARY KEY (sha, path));
CREATE TABLE IF NOT EXISTS workflow_runs (id INTEGER PRIMARY KEY AUTOINCREMENT);
CREATE TABLE IF NOT EXISTS reruns (id INTEGER PRIMARY KEY AUTOINCREMENT, run_id INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS workflow_jobs (id INTEGER PRIMARY KEY AUTOINCREMENT, run_id INTEGER NOT NULL,
  job TEXT NOT NULL, log TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS reviews (id INTEGER PRIMARY KEY AUTOINCREMENT, comments TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

type PullRow = {
  number: number;
  head: string;
  base: string;
  title: string;
  body: string;
  draft: number;
  head_sha: string;
  labels: string;
};

type ReviewComment = { path: string; line: number | null; body: string };

/**
 * A CodeHost kept in a SQLite file, so worker processes that are killed and
 * restarted share one "GitHub" and the test can count what was posted.
 * Upserts by marker are transactions, as GitHub's list-then-edit is not, so
 * any duplicate the test finds comes from the job, not from this fake.
 * It answers as FakeCodeHost does, errors included, and the CodeHost
 * contract (test/contract/code-host.test.ts) runs against it to keep it so.
 * Settings keys: `branch:<name>` (a sha), `config`, `permission:<login>`,
 * `withheld:<method>` (the permission GitHub would name as missing).
 */
export class SqliteCodeHost implements CodeHost {
  private readonly db: Database.Database;

  constructor(
    path: string,
    readonly repository = 'octo/app',
  ) {
    this.db = new Database(path, { timeout: 10_000 });
    this.db.pragma('journal_mode = WAL');
    this.db.exec(SCHEMA);
  }

  setSetting(key: string, value: unknown): void {
    this.db
      .prepare('INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)')
      .run(key, JSON.stringify(value));
  }

  deleteSetting(key: string): void {
    this.db.prepare('DELETE FROM settings WHERE key = ?').run(key);
  }

  private setting<T>(key: string): T | null {
    const row = this.db.prepare('SELECT value FROM settings WHERE key = ?').get(key) as
      | { value: string }
      | undefined;
    return row ? (JSON.parse(row.value) as T) : null;
  }

  addCommit(sha: string, files: Record<string, string>): void {
    const insert = this.db.prepare('INSERT OR REPLACE INTO files (sha, path, content) VALUES (?, ?, ?)');
    for (const [path, content] of Object.entries(files)) insert.run(sha, path, content);
  }

  /** A finished workflow run; the ids of its jobs in the order given. */
  addWorkflowRun(jobs: (Omit<WorkflowJob, 'id'> & { log: string })[]): { runId: number; jobIds: number[] } {
    return this.db.transaction(() => {
      const runId = Number(this.db.prepare('INSERT INTO workflow_runs DEFAULT VALUES').run().lastInsertRowid);
      const insert = this.db.prepare('INSERT INTO workflow_jobs (run_id, job, log) VALUES (?, ?, ?)');
      const jobIds = jobs.map(({ log, name, conclusion, steps }) =>
        Number(insert.run(runId, JSON.stringify({ name, conclusion, steps }), log).lastInsertRowid),
      );
      return { runId, jobIds };
    })();
  }

  addReview(comments: ReviewComment[]): number {
    return Number(
      this.db.prepare('INSERT INTO reviews (comments) VALUES (?)').run(JSON.stringify(comments))
        .lastInsertRowid,
    );
  }

  comments(): { id: number; issue: number; body: string }[] {
    return this.db.prepare('SELECT * FROM comments ORDER BY id').all() as {
      id: number;
      issue: number;
      body: string;
    }[];
  }

  reactions(): { target: string; content: string }[] {
    return this.db.prepare('SELECT target, content FROM reactions ORDER BY id').all() as {
      target: string;
      content: string;
    }[];
  }

  pulls(): { number: number; head: string; base: string; title: string; body: string; labels: string[] }[] {
    return (this.db.prepare('SELECT * FROM pulls ORDER BY number').all() as PullRow[]).map((row) => ({
      number: row.number,
      head: row.head,
      base: row.base,
      title: row.title,
      body: row.body,
      labels: JSON.parse(row.labels) as string[],
    }));
  }

  checkRuns(): StoredCheckRun[] {
    return (this.db.prepare('SELECT run FROM check_runs ORDER BY id').all() as { run: string }[]).map(
      (row) => JSON.parse(row.run) as StoredCheckRun,
    );
  }

  close(): void {
    this.db.close();
  }

  async upsertComment(issueNumber: number, marker: string, body: string): Promise<PostedComment> {
    this.refuseWithheld('upsertComment');
    refuseLongBody('IssueComment', body);
    const id = this.db
      .transaction(() => {
        const existing = this.db
          .prepare('SELECT id FROM comments WHERE issue = ? AND instr(body, ?) > 0')
          .get(issueNumber, marker) as { id: number } | undefined;
        if (existing) {
          this.db.prepare('UPDATE comments SET body = ? WHERE id = ?').run(body, existing.id);
          return existing.id;
        }
        return this.insertComment(issueNumber, body);
      })
      .immediate();
    return this.posted(issueNumber, id);
  }

  async createComment(issueNumber: number, body: string): Promise<PostedComment> {
    this.refuseWithheld('createComment');
    refuseLongBody('IssueComment', body);
    return this.posted(issueNumber, this.insertComment(issueNumber, body));
  }

  async react(target: { issueNumber: number } | { commentId: number }, reaction: Reaction): Promise<void> {
    this.refuseWithheld('react');
    const named = 'issueNumber' in target ? `issue:${target.issueNumber}` : `comment:${target.commentId}`;
    this.db.prepare('INSERT INTO reactions (target, content) VALUES (?, ?)').run(named, reaction);
  }

  async permissionOf(login: string): Promise<Permission> {
    this.refuseWithheld('permissionOf');
    return this.setting<Permission>(`permission:${login}`) ?? 'none';
  }

  async branchHead(branch: string): Promise<string> {
    this.refuseWithheld('branchHead');
    const sha = this.setting<string>(`branch:${branch}`);
    if (!sha) throw new GitHubNotFoundError(`The fake has no branch ${branch}.`);
    return sha;
  }

  async pullRequest(number: number): Promise<PullRequestDetails> {
    this.refuseWithheld('pullRequest');
    const row = this.pullRow(number);
    return {
      ...this.ref(row),
      // GitHub reads the head from the branch, wherever it points now.
      headSha: this.setting<string>(`branch:${row.head}`) ?? row.head_sha,
      headRepository: this.repository,
      base: row.base,
    };
  }

  async reviewComments(_pullNumber: number, reviewId: number): Promise<ReviewComment[]> {
    this.refuseWithheld('reviewComments');
    const row = this.db.prepare('SELECT comments FROM reviews WHERE id = ?').get(reviewId) as
      | { comments: string }
      | undefined;
    if (row === undefined) throw new GitHubNotFoundError(`The fake has no review ${reviewId}.`);
    return JSON.parse(row.comments) as ReviewComment[];
  }

  async addLabels(issueNumber: number, labels: string[]): Promise<void> {
    this.refuseWithheld('addLabels');
    this.db
      .transaction(() => {
        const row = this.db.prepare('SELECT labels FROM pulls WHERE number = ?').get(issueNumber) as
          | { labels: string }
          | undefined;
        if (row === undefined) return;
        const kept = JSON.parse(row.labels) as string[];
        const added = [...kept, ...labels.filter((label) => !kept.includes(label))];
        this.db
          .prepare('UPDATE pulls SET labels = ? WHERE number = ?')
          .run(JSON.stringify(added), issueNumber);
      })
      .immediate();
  }

  async repoConfigFile(): Promise<unknown> {
    this.refuseWithheld('repoConfigFile');
    return this.setting('config');
  }

  async findPullRequest(head: string): Promise<PullRequestRef | null> {
    this.refuseWithheld('findPullRequest');
    const row = this.db.prepare('SELECT * FROM pulls WHERE head = ? ORDER BY number').get(head) as
      | PullRow
      | undefined;
    return row ? this.ref(row) : null;
  }

  async createPullRequest(request: {
    title: string;
    body: string;
    head: string;
    base: string;
    draft: boolean;
  }): Promise<PullRequestRef> {
    this.refuseWithheld('createPullRequest');
    refuseLongBody('PullRequest', request.body);
    const number = this.db
      .transaction(() => {
        const open = this.db
          .prepare('SELECT 1 FROM pulls WHERE head = ? AND base = ?')
          .get(request.head, request.base);
        if (open !== undefined)
          throw new GitHubApiError(`A pull request already exists for ${request.head}.`, { status: 422 });
        const headSha = this.setting<string>(`branch:${request.head}`) ?? '';
        return Number(
          this.db
            .prepare(
              'INSERT INTO pulls (head, base, title, body, draft, head_sha, labels) VALUES (?, ?, ?, ?, ?, ?, ?)',
            )
            .run(
              request.head,
              request.base,
              request.title,
              request.body,
              request.draft ? 1 : 0,
              headSha,
              '[]',
            ).lastInsertRowid,
        );
      })
      .immediate();
    return this.ref({ number, head: request.head, draft: request.draft ? 1 : 0 });
  }

  async updatePullRequest(number: number, update: { body?: string; title?: string }): Promise<void> {
    this.refuseWithheld('updatePullRequest');
    const row = this.pullRow(number);
    if (update.body !== undefined) refuseLongBody('PullRequest', update.body);
    this.db
      .prepare('UPDATE pulls SET title = ?, body = ? WHERE number = ?')
      .run(update.title ?? row.title, update.body ?? row.body, number);
  }

  async createCheckRun(request: { name: string; headSha: string } & CheckRunUpdate) {
    this.refuseWithheld('createCheckRun');
    const id = this.db
      .transaction(() => {
        const id = Number(
          this.db.prepare("INSERT INTO check_runs (run) VALUES ('{}')").run().lastInsertRowid,
        );
        const run: StoredCheckRun = { id, name: request.name, headSha: request.headSha, status: 'queued' };
        applyCheckRunUpdate(run, request);
        this.saveCheckRun(run);
        return id;
      })
      .immediate();
    return { id, url: `https://github.com/${this.repository}/runs/${id}` };
  }

  async updateCheckRun(id: number, update: CheckRunUpdate): Promise<void> {
    this.refuseWithheld('updateCheckRun');
    this.db
      .transaction(() => {
        const row = this.db.prepare('SELECT run FROM check_runs WHERE id = ?').get(id) as
          | { run: string }
          | undefined;
        if (row === undefined) throw new GitHubNotFoundError(`The fake has no check run ${id}.`);
        const run = JSON.parse(row.run) as StoredCheckRun;
        applyCheckRunUpdate(run, update);
        this.saveCheckRun(run);
      })
      .immediate();
  }

  async failedJobs(runId: number): Promise<WorkflowJob[]> {
    this.refuseWithheld('failedJobs');
    if (this.db.prepare('SELECT 1 FROM workflow_runs WHERE id = ?').get(runId) === undefined)
      throw new GitHubNotFoundError(`The fake has no workflow run ${runId}.`);
    const rows = this.db
      .prepare('SELECT id, job FROM workflow_jobs WHERE run_id = ? ORDER BY id')
      .all(runId) as {
      id: number;
      job: string;
    }[];
    return rows
      .map((row) => ({ id: row.id, ...(JSON.parse(row.job) as Omit<WorkflowJob, 'id'>) }))
      .filter((job) => job.conclusion === 'failure');
  }

  async jobLog(jobId: number): Promise<Readable> {
    this.refuseWithheld('jobLog');
    const row = this.db.prepare('SELECT log FROM workflow_jobs WHERE id = ?').get(jobId) as
      | { log: string }
      | undefined;
    if (row === undefined) throw new GitHubNotFoundError(`The fake has no log for job ${jobId}.`);
    return Readable.from([Buffer.from(row.log, 'utf8')]);
  }

  /** Jobs here carry no annotations: their logs say everything the fault tests need. */
  async jobFailureAnnotations(jobId: number): Promise<string[]> {
    this.refuseWithheld('jobFailureAnnotations');
    if (this.db.prepare('SELECT 1 FROM workflow_jobs WHERE id = ?').get(jobId) === undefined)
      throw new GitHubNotFoundError(`The fake has no job ${jobId}.`);
    return [];
  }

  async rerunFailedJobs(runId: number): Promise<void> {
    this.refuseWithheld('rerunFailedJobs');
    if (this.db.prepare('SELECT 1 FROM workflow_runs WHERE id = ?').get(runId) === undefined)
      throw new GitHubNotFoundError(`The fake has no workflow run ${runId}.`);
    this.db.prepare('INSERT INTO reruns (run_id) VALUES (?)').run(runId);
  }

  async fileContent(path: string, ref: string): Promise<string | null> {
    this.refuseWithheld('fileContent');
    const sha = this.setting<string>(`branch:${ref}`) ?? ref;
    const row = this.db.prepare('SELECT content FROM files WHERE sha = ? AND path = ?').get(sha, path) as
      | { content: string }
      | undefined;
    return row?.content ?? null;
  }

  private refuseWithheld(method: keyof CodeHost): void {
    refuseWithheld(method, this.setting<string>(`withheld:${method}`) ?? undefined);
  }

  private insertComment(issueNumber: number, body: string): number {
    return Number(
      this.db.prepare('INSERT INTO comments (issue, body) VALUES (?, ?)').run(issueNumber, body)
        .lastInsertRowid,
    );
  }

  private saveCheckRun(run: StoredCheckRun): void {
    this.db.prepare('UPDATE check_runs SET run = ? WHERE id = ?').run(JSON.stringify(run), run.id);
  }

  private pullRow(number: number): PullRow {
    const row = this.db.prepare('SELECT * FROM pulls WHERE number = ?').get(number) as PullRow | undefined;
    if (row === undefined) throw new GitHubNotFoundError(`The fake has no pull request #${number}.`);
    return row;
  }

  private posted(issueNumber: number, id: number): PostedComment {
    return { id, url: `https://github.com/${this.repository}/issues/${issueNumber}#issuecomment-${id}` };
  }

  private ref(row: { number: number; head: string; draft: number }): PullRequestRef {
    return {
      number: row.number,
      url: `https://github.com/${this.repository}/pull/${row.number}`,
      head: row.head,
      draft: row.draft === 1,
    };
  }
}
