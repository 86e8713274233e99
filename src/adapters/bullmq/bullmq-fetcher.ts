import { type Job, Worker } from 'bullmq';
import type { JobRequest } from '../../queue/job-request.js';

/**
 * BullMQ's manual fetch for claims: one BullMQ worker connection, made on
 * the first claim so web processes never hold a blocking connection, whose
 * lock is the lease and whose stalled-job check puts a dead worker's job back.
 */
export class JobFetcher {
  private worker: Worker | null = null;

  constructor(
    private readonly options: { queueName: string; url: string; prefix: string; leaseMs: number },
  ) {}

  /** The BullMQ worker, made (and its stalled-job check started) on the first call. */
  async connect(): Promise<Worker> {
    if (this.worker) return this.worker;
    const worker = new Worker(this.options.queueName, null, {
      connection: { url: this.options.url },
      prefix: this.options.prefix,
      lockDuration: this.options.leaseMs,
      stalledInterval: this.options.leaseMs,
      // Runs are counted (and capped) by the CLAIM script, which also counts hand-backs apart.
      maxStalledCount: Number.MAX_SAFE_INTEGER,
      drainDelay: 1,
    });
    worker.on('error', () => {});
    this.worker = worker;
    await worker.startStalledCheckTimer();
    return worker;
  }

  /**
   * BullMQ's blocking fetch, again while it comes back at once with nothing:
   * wake-ups left over from the jobs taken earlier end the first waits early
   * (two per job, measured), and returning then would make the worker sleep.
   */
  async next(worker: Worker, token: string): Promise<Job<JobRequest> | undefined> {
    for (let quick = 0; quick < 4; quick++) {
      const started = Date.now();
      const job = (await worker.getNextJob(token, { block: true })) as Job<JobRequest> | undefined;
      if (job || Date.now() - started > 50) return job;
    }
    return undefined;
  }

  async close(): Promise<void> {
    await this.worker?.close(true);
  }
}
