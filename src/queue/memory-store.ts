import { randomUUID } from 'node:crypto';
import { jobRecord, openJob } from './job-record.js';
import {
  issueNumberOf,
  type JobMatch,
  type JobRequest,
  repositoryKey,
  serialKeyOf,
  staleBranchOf,
} from './job-request.js';
import {
  DEFAULT_LEASE_MS,
  DEFAULT_MAX_RUNS,
  DEFAULT_RETENTION,
  type HistoryQuery,
  type JobRecord,
  type JobResult,
  type JobStore,
  type Lease,
  type LeaseStatus,
  type OpenJob,
  type Retention,
  resultWithout,
  SPEND_LEDGER_MS,
  type StaleTarget,
  type StoreOptions,
} from './job-store.js';
import { WorkSignal } from './work-signal.js';

interface Entry {
  request: JobRequest;
  repository: string;
  serialKey: string;
  state: 'waiting' | 'running';
  runs: number;
  handbacks: number;
  token: string | null;
  leaseUntil: number;
  container: boolean;
  cancelReason: string | null;
  checkpoints: Record<string, string>;
  enqueuedAt: number;
  startedAt: number | null;
  onCancel: ((reason: string) => void)[];
}

/**
 * The JobStore in this process's memory: the simplest adapter, for tests and
 * a single App process that may lose queued jobs on restart. It keeps the
 * same leases, serialization and deduplication as the durable adapters.
 */
export class MemoryJobStore implements JobStore {
  readonly leaseMs: number;
  private readonly maxRuns: number;
  private readonly retention: Retention;
  private readonly now: () => number;
  private readonly open: Entry[] = [];
  private readonly seen = new Map<string, { jobId: string; at: number }>();
  private readonly requests: JobRequest[] = [];
  private readonly records: JobRecord[] = [];
  /** Finished jobs' costs, oldest first: pruned by age only (SPEND_LEDGER_MS), never with the history. */
  private readonly spend: { installationId: number; at: number; costUsd: number }[] = [];
  private readonly signal = new WorkSignal();

  constructor(options: StoreOptions = {}) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.maxRuns = options.maxRuns ?? DEFAULT_MAX_RUNS;
    this.retention = { ...DEFAULT_RETENTION, ...options.retention };
    this.now = options.now ?? Date.now;
  }

  async enqueue(request: JobRequest): Promise<{ accepted: boolean; jobId: string }> {
    const now = this.now();
    for (const [key, value] of this.seen) if (now - value.at > this.retention.dedupeMs) this.seen.delete(key);
    const keys = [`delivery:${request.deliveryId}`, `key:${request.dedupeKey}`];
    const earlier = keys.map((key) => this.seen.get(key)).find((value) => value !== undefined);
    if (earlier) return { accepted: false, jobId: earlier.jobId };
    for (const key of keys) this.seen.set(key, { jobId: request.id, at: now });
    this.requests.push(structuredClone(request));
    // `latest` looks back as far as the history does.
    if (this.requests.length > this.retention.maxRecords) this.requests.shift();
    this.open.push({
      request: structuredClone(request),
      repository: repositoryKey(request.repository),
      serialKey: serialKeyOf(request),
      state: 'waiting',
      runs: 0,
      handbacks: 0,
      token: null,
      leaseUntil: 0,
      container: false,
      cancelReason: null,
      checkpoints: {},
      enqueuedAt: now,
      startedAt: null,
      onCancel: [],
    });
    this.signal.notify();
    return { accepted: true, jobId: request.id };
  }

  async cancel(match: JobMatch, reason: string): Promise<number> {
    return this.cancelWhere(
      (entry) =>
        entry.repository === match.repository.toLowerCase() &&
        issueNumberOf(entry.request) === match.issueNumber,
      reason,
    );
  }

  async cancelStale(target: StaleTarget, reason: string): Promise<number> {
    return this.cancelWhere(
      (entry) =>
        entry.repository === target.repository.toLowerCase() &&
        staleBranchOf(entry.request) === target.branch &&
        entry.request.headSha !== target.sha,
      reason,
    );
  }

  async latest(match: JobMatch): Promise<JobRequest | null> {
    const found = this.requests.findLast(
      (request) =>
        repositoryKey(request.repository) === match.repository.toLowerCase() &&
        issueNumberOf(request) === match.issueNumber,
    );
    return found ? structuredClone(found) : null;
  }

  async claim(_workerId: string): Promise<Lease | null> {
    const now = this.now();
    for (const entry of [...this.open]) {
      if (entry.state !== 'running' || entry.leaseUntil >= now) continue;
      // A crashed worker's job: finished here when it was cancelled meanwhile or keeps killing workers.
      if (entry.cancelReason !== null) this.finish(entry, resultWithout('cancelled', entry.cancelReason));
      else if (entry.runs - entry.handbacks >= this.maxRuns)
        this.finish(
          entry,
          resultWithout('abandoned', `stopped after ${entry.runs} runs that never finished`),
        );
    }
    const busy = new Set(
      this.open
        .filter((entry) => entry.state === 'running' && entry.leaseUntil >= now)
        .map((entry) => `${entry.repository}|${entry.serialKey}`),
    );
    const entry = this.open.find(
      (candidate) =>
        (candidate.state === 'waiting' || candidate.leaseUntil < now) &&
        !busy.has(`${candidate.repository}|${candidate.serialKey}`),
    );
    if (!entry) return null;
    entry.state = 'running';
    entry.runs += 1;
    entry.token = randomUUID();
    entry.leaseUntil = now + this.leaseMs;
    entry.container = false;
    entry.startedAt ??= now;
    entry.onCancel = [];
    return this.leaseOf(entry, entry.token);
  }

  waitForWork(ms: number, signal?: AbortSignal): Promise<void> {
    return this.signal.wait(ms, signal);
  }

  async history(query: HistoryQuery = {}): Promise<JobRecord[]> {
    const repository = query.repository?.toLowerCase();
    return this.records
      .filter((record) => repository === undefined || record.repository.toLowerCase() === repository)
      .slice(-(query.limit ?? 100))
      .reverse()
      .map((record) => structuredClone(record));
  }

  async counts(): Promise<{ waiting: number; running: number }> {
    const running = this.open.filter((entry) => entry.state === 'running').length;
    return { waiting: this.open.length - running, running };
  }

  async openJobs(): Promise<OpenJob[]> {
    return this.open.map((entry) =>
      openJob(entry.request, {
        state: entry.state,
        runs: entry.runs,
        enqueuedAt: entry.enqueuedAt,
        startedAt: entry.startedAt,
      }),
    );
  }

  async spentUsd(installationId: number, sinceMs: number): Promise<number> {
    return this.spend
      .filter((entry) => entry.installationId === installationId && entry.at >= sinceMs)
      .reduce((sum, entry) => sum + entry.costUsd, 0);
  }

  async close(): Promise<void> {
    this.signal.notify();
  }

  private leaseOf(entry: Entry, token: string): Lease {
    const holds = () => entry.token === token && this.open.includes(entry);
    const store = this;
    return {
      job: {
        request: structuredClone(entry.request),
        run: entry.runs,
        checkpoints: { ...entry.checkpoints },
      },
      async renew(): Promise<LeaseStatus> {
        if (!holds()) return { state: 'lost' };
        entry.leaseUntil = store.now() + store.leaseMs;
        return entry.cancelReason === null
          ? { state: 'held' }
          : { state: 'cancelled', reason: entry.cancelReason };
      },
      async checkpoint(key, value) {
        if (holds()) entry.checkpoints[key] = value;
      },
      async acquireContainer(max) {
        if (!holds()) return false;
        const now = store.now();
        const live = store.open.filter(
          (other) =>
            other !== entry && other.container && other.state === 'running' && other.leaseUntil >= now,
        ).length;
        if (live >= max) return false;
        entry.container = true;
        return true;
      },
      async releaseContainer() {
        if (holds()) entry.container = false;
        store.signal.notify();
      },
      async complete(result: JobResult) {
        if (!holds()) return false;
        store.finish(entry, result);
        return true;
      },
      async release() {
        if (!holds()) return;
        Object.assign(entry, { state: 'waiting', token: null, leaseUntil: 0, container: false });
        entry.handbacks += 1;
        store.signal.notify();
      },
      onCancel(listener) {
        entry.onCancel.push(listener);
      },
    };
  }

  private cancelWhere(matches: (entry: Entry) => boolean, reason: string): number {
    const now = this.now();
    let count = 0;
    for (const entry of [...this.open]) {
      if (!matches(entry) || entry.cancelReason !== null) continue;
      count++;
      if (entry.state === 'waiting' || entry.leaseUntil < now) {
        this.finish(entry, resultWithout('cancelled', reason));
        continue;
      }
      entry.cancelReason = reason;
      for (const listener of entry.onCancel) listener(reason);
    }
    return count;
  }

  private finish(entry: Entry, result: JobResult): void {
    const now = this.now();
    this.open.splice(this.open.indexOf(entry), 1);
    if (result.costUsd > 0)
      this.spend.push({ installationId: entry.request.installationId, at: now, costUsd: result.costUsd });
    const spendKept = this.spend.findIndex((spent) => now - spent.at <= SPEND_LEDGER_MS);
    this.spend.splice(0, spendKept < 0 ? this.spend.length : spendKept);
    this.records.push(
      jobRecord(entry.request, result, {
        enqueuedAt: entry.enqueuedAt,
        startedAt: entry.startedAt,
        finishedAt: now,
        runs: entry.runs,
      }),
    );
    const tooOld = this.records.findIndex(
      (record) => now - Date.parse(record.finishedAt) <= this.retention.maxAgeMs,
    );
    this.records.splice(0, tooOld < 0 ? this.records.length : tooOld);
    if (this.records.length > this.retention.maxRecords)
      this.records.splice(0, this.records.length - this.retention.maxRecords);
    this.signal.notify();
  }
}
