import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, it } from 'vitest';

export interface AttackRow {
  suite: string;
  attack: string;
  stopped: boolean;
  /** What stopped it, in a few words (shown in the table and SECURITY.md). */
  by: string;
}

/**
 * One suite of attacks: each `attack()` is a test that passes only when the
 * attack failed. When the suite ends it prints the attack → stopped table,
 * and with SELFDEBUG_ATTACK_REPORT=<folder> it also appends the rows as JSON
 * lines there, which `npx tsx scripts/security-table.ts` turns into the
 * table in SECURITY.md.
 */
export function attackSuite(suite: string) {
  const rows: AttackRow[] = [];
  afterAll(() => {
    if (rows.length === 0) return;
    const width = Math.max(...rows.map((row) => row.attack.length));
    const lines = rows.map((row) => `${row.stopped ? '✔' : '✘'} ${row.attack.padEnd(width)}  ${row.by}`);
    const stopped = rows.filter((row) => row.stopped).length;
    console.log(`${suite}: ${stopped} of ${rows.length} attacks stopped\n${lines.join('\n')}`);
    const folder = process.env.SELFDEBUG_ATTACK_REPORT;
    if (folder) {
      mkdirSync(folder, { recursive: true });
      appendFileSync(join(folder, 'attacks.jsonl'), rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
    }
  });

  /** A test named after the attack; `by` says what stops it. The body asserts that it was stopped. */
  return function attack(name: string, by: string, body: () => Promise<void> | void, timeout?: number): void {
    it(
      `stops: ${name}`,
      async () => {
        try {
          await body();
        } catch (error) {
          rows.push({ suite, attack: name, stopped: false, by });
          throw error;
        }
        rows.push({ suite, attack: name, stopped: true, by });
      },
      timeout,
    );
  };
}
