import { BullmqJobStore } from '../adapters/bullmq/bullmq-store.js';
import { SqliteJobStore } from '../adapters/sqlite/sqlite-store.js';
import type { AppConfig } from '../config/app-config.js';
import type { JobStore, StoreOptions } from '../queue/job-store.js';
import { MemoryJobStore } from '../queue/memory-store.js';
import type { QueueConfig } from '../queue/queue-config.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The one place that picks the queue adapter from SELFDEBUG_QUEUE. */
export function openJobStore(app: AppConfig, queue: QueueConfig): JobStore {
  const options: StoreOptions = {
    leaseMs: queue.leaseSeconds * 1000,
    retention: { maxRecords: queue.historyMax, maxAgeMs: queue.historyDays * DAY_MS },
  };
  switch (app.queue) {
    case 'memory':
      return new MemoryJobStore(options);
    case 'sqlite':
      return new SqliteJobStore(queue.path, options);
    case 'redis':
      // loadAppConfig already refused SELFDEBUG_QUEUE=redis without REDIS_URL.
      return new BullmqJobStore({ ...options, url: app.redisUrl!, prefix: queue.redisPrefix });
  }
}

/** Whether the App process runs jobs itself rather than leaving them to `selfdebug worker`. */
export function runsJobsInProcess(app: AppConfig, queue: QueueConfig): boolean {
  return queue.inProcessWorker ?? app.queue !== 'redis';
}
