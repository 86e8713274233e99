import type { Retention, StoreOptions } from './job-store.js';
import { storeSettings } from './store-settings.js';
import { WorkSignal } from './work-signal.js';

/**
 * What every JobStore adapter holds alike: its settings with the shared
 * defaults filled in, and the signal that wakes this process's workers when
 * a job may have become claimable. An adapter whose claim blocks on its own
 * (bullmq) overrides how long `waitForWork` waits.
 */
export abstract class JobStoreBase {
  readonly leaseMs: number;
  protected readonly maxRuns: number;
  protected readonly retention: Retention;
  /** When jobs were enqueued, started and finished; a test brings its own clock. */
  protected readonly now: () => number;
  protected readonly signal = new WorkSignal();

  constructor(options: StoreOptions = {}) {
    const settings = storeSettings(options);
    this.leaseMs = settings.leaseMs;
    this.maxRuns = settings.maxRuns;
    this.retention = settings.retention;
    this.now = settings.now;
  }

  waitForWork(ms: number, signal?: AbortSignal): Promise<void> {
    return this.signal.wait(ms, signal);
  }
}
