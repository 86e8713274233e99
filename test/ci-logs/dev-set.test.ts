import { describe, expect, it } from 'vitest';
import { aggregate, BUDGET, devLogs, groupBy, type Measured, measureLog } from './dev-set.js';

/**
 * The development set: real failures of real tools (tools.sh) in each CI system's log
 * structure (wrap.ts), the explaining lines labelled. On every CI system and every
 * toolchain the excerpt keeps at least what `tail -n 150` keeps, with higher precision,
 * within the budget; docs/ci-logs.md shows the table (`npx tsx test/ci-logs/dev-set-table.ts`).
 */
const rows: Measured[] = [];

describe('the development set', async () => {
  for (const name of devLogs()) rows.push(await measureLog(name));

  it('holds at least 100 logs from 6 CI systems and 10 toolchains', () => {
    expect(rows.length).toBeGreaterThanOrEqual(100);
    expect(new Set(rows.map((row) => row.sidecar.system)).size).toBeGreaterThanOrEqual(6);
    expect(new Set(rows.map((row) => row.sidecar.toolchain)).size).toBeGreaterThanOrEqual(10);
  });

  it('recognises each log’s CI system', () => {
    const wrong = rows.filter((row) => row.detected !== row.sidecar.system).map((row) => row.name);
    expect(wrong).toEqual([]);
  });

  it('never goes over the budget', () => {
    expect(rows.filter((row) => row.excerptLines > BUDGET).map((row) => row.name)).toEqual([]);
  });

  it.each([
    ['CI system', (row: Measured) => row.sidecar.system],
    ['toolchain', (row: Measured) => row.sidecar.toolchain],
  ] as const)('per %s: recall at least the tail’s, precision above it', (_, key) => {
    for (const group of [...groupBy(rows, key), aggregate('all', rows)]) {
      expect({ group: group.group, recall: group.excerptRecall >= group.tailRecall }).toEqual({
        group: group.group,
        recall: true,
      });
      expect({ group: group.group, precision: group.excerptPrecision > group.tailPrecision }).toEqual({
        group: group.group,
        precision: true,
      });
    }
  });

  it('keeps every labelled line the tail keeps, log by log', () => {
    const worse = rows.filter((row) => row.excerptKept < row.tailKept).map((row) => row.name);
    expect(worse).toEqual([]);
  });
});
