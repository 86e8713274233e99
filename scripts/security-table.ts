/**
 * Writes the attack table of SECURITY.md from what the attack suite recorded:
 *
 *   SELFDEBUG_ATTACK_REPORT=.security SELFDEBUG_REQUIRE_DOCKER=1 npx vitest run test/security
 *   npx tsx scripts/security-table.ts .security
 *
 * The table sits between the `attacks:start` and `attacks:end` markers.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

interface Row {
  suite: string;
  attack: string;
  stopped: boolean;
  by: string;
}

const folder = process.argv[2] ?? '.security';
const target = new URL('../SECURITY.md', import.meta.url);
const rows = (await readFile(join(folder, 'attacks.jsonl'), 'utf8'))
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as Row);
const stopped = rows.filter((row) => row.stopped).length;
const cell = (text: string) => text.replaceAll('|', '\\|');
const table = [
  `**${rows.length} attacks, ${stopped} stopped** (measured ${new Date().toISOString().slice(0, 10)}, the real engine).`,
  '',
  '| area | attack | stopped | by |',
  '| --- | --- | --- | --- |',
  ...rows
    .sort((left, right) => left.suite.localeCompare(right.suite))
    .map((row) => `| ${row.suite} | ${cell(row.attack)} | ${row.stopped ? '✔' : '✘'} | ${cell(row.by)} |`),
].join('\n');
const text = await readFile(target, 'utf8');
if (!text.includes('<!-- attacks:start -->')) throw new Error('SECURITY.md has no attacks:start marker');
const updated = text.replace(
  /(<!-- attacks:start -->)[\s\S]*?(<!-- attacks:end -->)/,
  (_whole, start: string, end: string) => `${start}\n${table}\n${end}`,
);
await writeFile(target, updated);
console.log(`SECURITY.md: ${rows.length} attacks, ${stopped} stopped`);
