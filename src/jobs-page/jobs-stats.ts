import type { JobOutcome, JobRecord } from '../queue/job-store.js';

/** Outcomes that never set out to fix anything: they do not count for or against the fix rate. */
const NOT_A_FIX: ReadonlySet<JobOutcome> = new Set(['explained', 'cancelled', 'refused']);

export interface Totals {
  jobs: number;
  fixed: number;
  /** Jobs that set out to fix: the fix rate's denominator. */
  attempted: number;
  costUsd: number;
}

export interface RepositoryTotals extends Totals {
  repository: string;
}

export interface DayPoint extends Totals {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
}

/** fixed ÷ jobs that set out to fix; null when none did. */
export function fixRate(totals: Totals): number | null {
  return totals.attempted === 0 ? null : totals.fixed / totals.attempted;
}

function add(totals: Totals, record: JobRecord): void {
  totals.jobs += 1;
  if (record.outcome === 'fixed') totals.fixed += 1;
  if (!NOT_A_FIX.has(record.outcome)) totals.attempted += 1;
  totals.costUsd += record.costUsd;
}

const empty = (): Totals => ({ jobs: 0, fixed: 0, attempted: 0, costUsd: 0 });

/** Totals per repository (most jobs first), and over all of them. */
export function repositoryTotals(records: readonly JobRecord[]): {
  repositories: RepositoryTotals[];
  all: Totals;
} {
  const byRepository = new Map<string, RepositoryTotals>();
  const all = empty();
  for (const record of records) {
    const key = record.repository.toLowerCase();
    const totals = byRepository.get(key) ?? { repository: record.repository, ...empty() };
    byRepository.set(key, totals);
    add(totals, record);
    add(all, record);
  }
  const repositories = [...byRepository.values()].sort(
    (left, right) => right.jobs - left.jobs || left.repository.localeCompare(right.repository),
  );
  return { repositories, all };
}

/** One point per UTC day for the `days` days up to `now`, oldest first, by when jobs finished. */
export function dailySeries(records: readonly JobRecord[], now: Date, days: number): DayPoint[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const points = Array.from({ length: days }, (_, index) => ({
    day: new Date(today - (days - 1 - index) * 86_400_000).toISOString().slice(0, 10),
    ...empty(),
  }));
  const byDay = new Map(points.map((point) => [point.day, point]));
  for (const record of records) {
    const point = byDay.get(record.finishedAt.slice(0, 10));
    if (point) add(point, record);
  }
  return points;
}
