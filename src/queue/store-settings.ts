import {
  DEFAULT_LEASE_MS,
  DEFAULT_MAX_RUNS,
  DEFAULT_RETENTION,
  type Retention,
  type StoreOptions,
} from './job-store.js';

/** A JobStore's options with every default filled in: the same defaults for each adapter. */
export interface StoreSettings {
  leaseMs: number;
  maxRuns: number;
  retention: Retention;
  now: () => number;
}

export function storeSettings(options: StoreOptions): StoreSettings {
  return {
    leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
    maxRuns: options.maxRuns ?? DEFAULT_MAX_RUNS,
    retention: { ...DEFAULT_RETENTION, ...options.retention },
    now: options.now ?? Date.now,
  };
}
