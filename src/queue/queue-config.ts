import { z } from 'zod';
import { type Environment, readEnvironment } from '../config/read-environment.js';

/**
 * The queue's own settings, beside SELFDEBUG_QUEUE, REDIS_URL and the
 * concurrency limits in app-config.ts: where the SQLite file lives, how long
 * a lease lasts, how long shutdown waits, and how much history is kept.
 */
const queueConfigSchema = z.object({
  /** The SQLite file (SELFDEBUG_QUEUE=sqlite); relative paths start at the working directory. */
  path: z.string().trim().min(1).default('selfdebug-queue.sqlite'),
  /** A worker that stops renewing for this long has its jobs taken over. */
  leaseSeconds: z.int().min(5).max(3600).default(30),
  /** On SIGTERM, running jobs get this long to finish before they are handed back. */
  shutdownSeconds: z.int().min(0).max(3600).default(60),
  historyMax: z.int().min(1).max(10_000_000).default(10_000),
  historyDays: z.int().min(1).max(3650).default(30),
  /** Redis key prefix and BullMQ queue name: deployments sharing a Redis server pick their own. */
  redisPrefix: z
    .string()
    .regex(/^[\w.-]+$/, 'may hold letters, digits, ".", "_" and "-" only')
    .default('selfdebug'),
  /**
   * Whether the App process runs jobs itself. Unset: yes for memory and
   * sqlite, no for redis, where `selfdebug worker` processes run them.
   */
  inProcessWorker: z.boolean().optional(),
});

export type QueueConfig = z.infer<typeof queueConfigSchema>;

const queueEnvironment = {
  path: ['SELFDEBUG_QUEUE_PATH'],
  leaseSeconds: ['SELFDEBUG_LEASE_SECONDS'],
  shutdownSeconds: ['SELFDEBUG_SHUTDOWN_SECONDS'],
  historyMax: ['SELFDEBUG_HISTORY_MAX'],
  historyDays: ['SELFDEBUG_HISTORY_DAYS'],
  redisPrefix: ['SELFDEBUG_REDIS_PREFIX'],
  inProcessWorker: ['SELFDEBUG_IN_PROCESS_WORKER'],
} as const satisfies Record<keyof QueueConfig, readonly string[]>;

export function loadQueueConfig(env: Environment): QueueConfig {
  return readEnvironment(queueConfigSchema, queueEnvironment, env);
}
