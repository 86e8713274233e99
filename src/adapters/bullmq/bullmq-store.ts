import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { type Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { CiVerdict } from '../../ci-verdict/ci-verdict.js';
import { QueueError } from '../../errors/index.js';
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
  type StaleTarget,
  type StoreOptions,
} from '../../queue/job-store.js';
import { JobStoreBase } from '../../queue/job-store-base.js';
import { abandonedAfter } from '../../queue/lease-rules.js';
import { awaitCiVerdict, dueCiVerdicts, pushedBy, recordCiVerdict } from './bullmq-ci-verdicts.js';
import { JobFetcher } from './bullmq-fetcher.js';
import { finishUnleased } from './bullmq-finish.js';
import { BullmqKeys, type OpenEntry } from './bullmq-keys.js';
import { bullmqLease, runClaim } from './bullmq-lease.js';
import { listOpenJobs, readHistory, spentSince } from './bullmq-queries.js';
import { ENQUEUE, FLAG_CANCEL } from './redis-scripts.js';

export interface BullmqStoreOptions extends StoreOptions {
  url: string;
  /** BullMQ queue name; one per deployment (tests use a fresh one each). */
  queueName?: string;
  /** Redis key prefix for everything the queue stores. */
  prefix?: string;
  /** Names this host's container slots; workers on one Docker engine must agree on it. */
  host?: string;
  /** How long a job waits before it is looked at again while its branch is busy. */
  busyDelayMs?: number;
}

const JOB_NAME = 'job';

/**
 * The scale-out JobStore: BullMQ on Redis. Web processes only enqueue (they
 * never open a BullMQ worker connection); worker processes on any host claim
 * jobs with BullMQ's manual fetch, whose lock is the lease, and BullMQ's
 * stalled-job check puts a dead worker's job back when its lock runs out.
 */
export class BullmqJobStore extends JobStoreBase implements JobStore {
  private readonly queue: Queue;
  private readonly redis: Redis;
  private readonly fetcher: JobFetcher;
  private readonly busyDelayMs: number;
  private readonly keys: BullmqKeys;

  constructor(options: BullmqStoreOptions) {
    // Locks, delays, container slots and dedupe windows expire in real time, not on the store's clock.
    super(options);
    this.busyDelayMs = options.busyDelayMs ?? Math.min(1000, Math.ceil(this.leaseMs / 4));
    const prefix = options.prefix ?? 'selfdebug';
    const name = options.queueName ?? 'jobs';
    this.keys = new BullmqKeys(`${prefix}:${name}`, options.host ?? hostname());
    this.queue = new Queue(name, { connection: { url: options.url }, prefix });
    this.fetcher = new JobFetcher({ queueName: name, url: options.url, prefix, leaseMs: this.leaseMs });
    this.redis = new Redis(options.url, { maxRetriesPerRequest: 3 });
    // Both clients reconnect on their own; an unhandled 'error' event would end the process instead.
    this.redis.on('error', () => {});
    this.queue.on('error', () => {});
  }

  async enqueue(request: JobRequest): Promise<{ accepted: boolean; jobId: string }> {
    const entry: OpenEntry = {
      request,
      repository: repositoryKey(request.repository),
      issueNumber: issueNumberOf(request),
      serialKey: serialKeyOf(request),
      staleBranch: staleBranchOf(request),
      enqueuedAt: this.now(),
    };
    const earlier = (await this.guarded('enqueue', () =>
      ENQUEUE.run(
        this.redis,
        [
          this.keys.key(`d:${request.deliveryId}`),
          this.keys.key(`k:${request.dedupeKey}`),
          this.keys.open,
          this.keys.latest(entry.repository, entry.issueNumber),
        ],
        [request.id, JSON.stringify(entry), JSON.stringify(request), this.retention.dedupeMs],
      ),
    )) as string;
    if (earlier === '') {
      await this.guarded('enqueue', () => this.add(request));
      this.signal.notify();
      return { accepted: true, jobId: request.id };
    }
    // The first delivery may have died between the bookkeeping and BullMQ's add: finish its enqueue.
    const open = (await this.redis.hget(this.keys.open, earlier)) as string | null;
    if (open !== null && (await this.queue.getJob(earlier)) === undefined)
      await this.add((JSON.parse(open) as OpenEntry).request);
    return { accepted: false, jobId: earlier };
  }

  async cancel(match: JobMatch, reason: string): Promise<number> {
    const repository = match.repository.toLowerCase();
    return this.cancelWhere(
      (entry) => entry.repository === repository && entry.issueNumber === match.issueNumber,
      reason,
    );
  }

  async cancelStale(target: StaleTarget, reason: string): Promise<number> {
    const repository = target.repository.toLowerCase();
    return this.cancelWhere(
      (entry) =>
        entry.repository === repository &&
        entry.staleBranch === target.branch &&
        entry.request.headSha !== target.sha,
      reason,
    );
  }

  async latest(match: JobMatch): Promise<JobRequest | null> {
    const text = await this.redis.get(this.keys.latest(match.repository.toLowerCase(), match.issueNumber));
    return text === null ? null : (JSON.parse(text) as JobRequest);
  }

  async claim(_workerId: string): Promise<Lease | null> {
    const worker = await this.fetcher.connect();
    // A few jobs may be set aside (their branch is busy) before one can run; the caller waits after that.
    for (let tries = 0; tries < 10; tries++) {
      const token = randomUUID();
      const job = await this.guarded('claim', () => this.fetcher.next(worker, token));
      if (!job?.id) return null;
      const lease = await this.take(job, token);
      if (lease !== null) return lease;
    }
    return null;
  }

  /** A fetched job's lease, or null when it was set aside (its branch is busy) or is over. */
  private async take(job: Job<JobRequest>, token: string): Promise<Lease | null> {
    const id = job.id!;
    const reply = await runClaim(
      { redis: this.redis, keys: this.keys, job, token, leaseMs: this.leaseMs },
      { maxRuns: this.maxRuns, startedAt: this.now() },
    );
    const [state] = reply;
    if (state === 'busy') {
      await job.moveToDelayed(Date.now() + this.busyDelayMs, token).catch(() => {});
      return null;
    }
    if (state === 'ok')
      return bullmqLease({
        redis: this.redis,
        keys: this.keys,
        leaseMs: this.leaseMs,
        job,
        token,
        claim: reply,
        finish: (record, entry) => this.keys.finish(this.redis, id, token, record, entry, this.retention),
        now: this.now,
        notify: () => this.signal.notify(),
      });
    if (state === 'cancelled') await this.finish(job, token, resultWithout('cancelled', reply[1] ?? null));
    if (state === 'abandoned') await this.finish(job, token, abandonedAfter(String(reply[1])));
    // Done (or just finished above): BullMQ's copy goes too; if the lock was lost, the next claim ends up here again.
    if (state !== 'lost') await job.moveToCompleted(null, token, false).catch(() => {});
    return null;
  }

  override waitForWork(ms: number, signal?: AbortSignal): Promise<void> {
    // claim() already blocked in Redis for new work; this only spaces out retries and wakes on local events.
    return this.signal.wait(Math.min(ms, 100), signal);
  }

  history(query: HistoryQuery = {}): Promise<JobRecord[]> {
    return readHistory(this.redis, this.keys, query);
  }

  async counts(): Promise<{ waiting: number; running: number }> {
    const counts = await this.queue.getJobCounts('waiting', 'delayed', 'prioritized', 'active');
    return {
      waiting: (counts.waiting ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0),
      running: counts.active ?? 0,
    };
  }

  openJobs(): Promise<OpenJob[]> {
    return listOpenJobs(this.redis, this.keys);
  }

  spentUsd(installationId: number, sinceMs: number): Promise<number> {
    return spentSince(this.redis, this.keys, installationId, sinceMs);
  }

  recordCiVerdict(jobId: string, verdict: CiVerdict): Promise<boolean> {
    return recordCiVerdict(this.redis, this.keys, jobId, verdict);
  }

  pushedBy(repository: string, sha: string): Promise<JobRecord | null> {
    return pushedBy(this.redis, this.keys, repository, sha);
  }

  awaitCiVerdict(jobId: string, untilMs: number | null): Promise<boolean> {
    return awaitCiVerdict(this.redis, this.keys, jobId, untilMs);
  }

  dueCiVerdicts(untilMs: number, limit: number): Promise<JobRecord[]> {
    return dueCiVerdicts(this.redis, this.keys, untilMs, limit);
  }

  async close(): Promise<void> {
    this.signal.notify();
    await this.fetcher.close();
    await this.queue.close();
    this.redis.disconnect();
  }

  /** Removes every key of this queue: for tests and benchmarks that use a queue of their own. */
  async obliterate(): Promise<void> {
    await this.queue.obliterate({ force: true });
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', this.keys.key('*'), 'COUNT', 500);
      if (keys.length > 0) await this.redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  }

  private add(request: JobRequest): Promise<unknown> {
    return this.queue.add(JOB_NAME, request, {
      jobId: request.id,
      removeOnComplete: true,
      removeOnFail: true,
    });
  }

  private async cancelWhere(matches: (entry: OpenEntry) => boolean, reason: string): Promise<number> {
    const open = await this.redis.hgetall(this.keys.open);
    let count = 0;
    for (const [id, text] of Object.entries(open)) {
      const entry = JSON.parse(text) as OpenEntry;
      if (!matches(entry)) continue;
      if ((await FLAG_CANCEL.run(this.redis, [this.keys.open, this.keys.meta(id)], [id, reason])) !== 1)
        continue;
      count++;
      // Waiting or delayed jobs go now; a running one is locked and sees the flag at its next renewal.
      if ((await this.queue.remove(id)) === 1)
        await this.finishEntry(id, '', entry, resultWithout('cancelled', reason));
    }
    if (count > 0) this.signal.notify();
    return count;
  }

  private async finish(job: Job<JobRequest>, token: string, result: JobResult): Promise<void> {
    const id = job.id!;
    const text = await this.redis.hget(this.keys.open, id);
    if (text === null) return;
    await this.finishEntry(id, token, JSON.parse(text) as OpenEntry, result);
  }

  /** Ends an open job that no lease completes (cancelled, abandoned); `token` '' for a job nobody holds. */
  private finishEntry(id: string, token: string, entry: OpenEntry, result: JobResult): Promise<void> {
    return finishUnleased(this.redis, this.keys, this.retention, {
      id,
      token,
      entry,
      result,
      finishedAt: this.now(),
    });
  }

  private async guarded<T>(what: string, action: () => Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (error) {
      throw new QueueError(
        `Could not ${what} a job in Redis (${String(error)}). Check that REDIS_URL points at a running Redis server.`,
        { cause: error, retryable: true },
      );
    }
  }
}
