import type { CiVerdict } from '../ci-verdict/ci-verdict.js';
import type { JobRecord } from './job-store.js';

/**
 * The memory store's part of following fixes' CI, over the history's own
 * records: the verdict and the wait kept on each record, and a map from
 * (repository, pushed commit) to the record, kept in step with the history
 * as it is added to and pruned.
 */
export class MemoryCiVerdicts {
  private readonly byFix = new Map<string, JobRecord>();

  constructor(private readonly records: readonly JobRecord[]) {}

  /** A record joined the history. */
  added(record: JobRecord): void {
    if (record.fixSha) this.byFix.set(fixKey(record.repository, record.fixSha), record);
  }

  /** Records left the history: their fixes go from the map too. */
  pruned(records: readonly JobRecord[]): void {
    for (const record of records) {
      const key = record.fixSha ? fixKey(record.repository, record.fixSha) : null;
      if (key !== null && this.byFix.get(key) === record) this.byFix.delete(key);
    }
  }

  pushedBy(repository: string, sha: string): JobRecord | null {
    const record = this.byFix.get(fixKey(repository, sha));
    return record === undefined ? null : structuredClone(record);
  }

  recordCiVerdict(jobId: string, verdict: CiVerdict): boolean {
    const record = this.records.find((candidate) => candidate.id === jobId);
    if (record === undefined || record.ciVerdict !== undefined) return false;
    record.ciVerdict = structuredClone(verdict);
    delete record.ciWaitUntil;
    return true;
  }

  awaitCiVerdict(jobId: string, untilMs: number | null): boolean {
    const record = this.records.find((candidate) => candidate.id === jobId);
    if (record === undefined || record.ciVerdict !== undefined) return false;
    if (untilMs === null) delete record.ciWaitUntil;
    else record.ciWaitUntil = untilMs;
    return true;
  }

  dueCiVerdicts(untilMs: number, limit: number): JobRecord[] {
    return this.records
      .filter((record) => record.ciVerdict === undefined && (record.ciWaitUntil ?? Infinity) <= untilMs)
      .sort((left, right) => left.ciWaitUntil! - right.ciWaitUntil!)
      .slice(0, limit)
      .map((record) => structuredClone(record));
  }
}

function fixKey(repository: string, sha: string): string {
  return `${repository.toLowerCase()}|${sha}`;
}
