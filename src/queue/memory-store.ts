import { randomUUID } from 'node:crypto';
import type { CiVerdict } from '../ci-verdict/ci-verdict.js';
import { describeOpenJob, jobRecord } from './job-record.js';
import {
  issueNumberOf,
  type JobMatch,
  type JobRequest,
  repositoryKey,
  serialKeyOf,
  staleBranchOf,
} from './job-request.js';
import {
  type HistoryQuery,
  type JobRecord,
  type JobResult,
  type JobStore,
  type Lease,
  type LeaseStatus,
  type OpenJob,
  resultWithout,
  SPEND_LEDGER_MS,
  type StaleTarget,
} from './job-store.js';
import { JobStoreBase } from './job-store-base.js';
import { expiredRunEnd, leaseStatusOf } from './lease-rules.js';
import { MemoryCiVerdicts } from './memory-ci-verdicts.js';

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
export class MemoryJobStore extends JobStoreBase implements JobStore {
  private readonly open: Entry[] = [];
  private readonly seen = new Map<string, { jobId: string; at: number }>();
  private readonly requests: JobRequest[] = [];
  private readonly records: JobRecord[] = [];
  /** Finished jobs' costs, oldest first: pruned by age only (SPEND_LEDGER_MS), never with the history. */
  private readonly spend: { installationId: number; at: number; costUsd: number }[] = [];
  private readonly ci = new MemoryCiVerdicts(this.records);

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
      const end = expiredRunEnd(entry, this.maxRuns);
      if (end !== null) this.finish(entry, end);
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
      describeOpenJob(entry.request, {
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

  async recordCiVerdict(jobId: string, verdict: CiVerdict): Promise<boolean> {
    return this.ci.recordCiVerdict(jobId, verdict);
  }

  async pushedBy(repository: string, sha: string): Promise<JobRecord | null> {
    return this.ci.pushedBy(repository, sha);
  }

  async awaitCiVerdict(jobId: string, untilMs: number | null): Promise<boolean> {
    return this.ci.awaitCiVerdict(jobId, untilMs);
  }

  async dueCiVerdicts(untilMs: number, limit: number): Promise<JobRecord[]> {
    return this.ci.dueCiVerdicts(untilMs, limit);
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
        return leaseStatusOf(entry.cancelReason);
      },
      async checkpoint(key, value) {
        if (holds()) entry.checkpoints[key] = value;
      },
      async acquireContainer(max) {
        if (!holds() || store.containersBesides(entry) >= max) return false;
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
        if (holds()) store.handBack(entry);
      },
      onCancel(listener) {
        entry.onCancel.push(listener);
      },
    };
  }

  /** Container slots held by other running jobs whose leases have not run out. */
  private containersBesides(entry: Entry): number {
    const now = this.now();
    return this.open.filter(
      (other) => other !== entry && other.container && other.state === 'running' && other.leaseUntil >= now,
    ).length;
  }

  /** Puts a running job back in line unfinished; the hand-back does not count as a crashed run. */
  private handBack(entry: Entry): void {
    Object.assign(entry, { state: 'waiting', token: null, leaseUntil: 0, container: false });
    entry.handbacks += 1;
    this.signal.notify();
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
    const record = jobRecord(entry.request, result, {
      enqueuedAt: entry.enqueuedAt,
      startedAt: entry.startedAt,
      finishedAt: now,
      runs: entry.runs,
    });
    this.records.push(record);
    this.ci.added(record);
    const tooOld = this.records.findIndex(
      (kept) => now - Date.parse(kept.finishedAt) <= this.retention.maxAgeMs,
    );
    this.ci.pruned(this.records.splice(0, tooOld < 0 ? this.records.length : tooOld));
    if (this.records.length > this.retention.maxRecords)
      this.ci.pruned(this.records.splice(0, this.records.length - this.retention.maxRecords));
    this.signal.notify();
  }
}
