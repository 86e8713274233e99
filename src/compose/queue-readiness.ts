import type { AppConfig } from '../config/app-config.js';
import { QueueError } from '../errors/index.js';
import type { JobStore } from '../queue/job-store.js';
import { Redactor } from '../report/index.js';

/** Longer than a healthy queue ever takes, shorter than a health check's timeout. */
const QUEUE_ANSWER_MS = 2000;

/**
 * Whether the job queue answers: `store.counts()` within `timeoutMs`. A
 * store that errors or hangs makes it reject with a QueueError saying which
 * queue and what to check; the message goes into /readyz's body, so it is
 * redacted (a REDIS_URL may carry a password).
 */
export function queueReadiness(
  store: JobStore,
  app: Pick<AppConfig, 'queue' | 'redisUrl'>,
  timeoutMs = QUEUE_ANSWER_MS,
): () => Promise<void> {
  const redactor = new Redactor([app.redisUrl, passwordOf(app.redisUrl)]);
  const check = {
    memory: 'the process itself',
    sqlite: 'SELFDEBUG_QUEUE_PATH (the file and its folder must be writable)',
    redis: 'REDIS_URL and that Redis is up and reachable from this host',
  }[app.queue];
  return async () => {
    try {
      await answeredWithin(store.counts(), timeoutMs);
    } catch (error) {
      const why = redactor.redact(error instanceof Error ? error.message : String(error));
      throw new QueueError(`the ${app.queue} job queue did not answer (${why}); check ${check}`, {
        cause: error,
        retryable: true,
      });
    }
  };
}

/** The queue's counts, or nothing when it does not answer in time (a scrape must not hang on it). */
export function queueDepth(store: JobStore, timeoutMs = QUEUE_ANSWER_MS) {
  return () => answeredWithin(store.counts(), timeoutMs);
}

function answeredWithin<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function passwordOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}
