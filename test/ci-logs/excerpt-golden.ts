import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { excerptLog } from '../../src/ci-logs/index.js';

/**
 * The excerpt's exact output on every stored log at four budgets, as sha256 of the whole
 * LogExcerpt: the guard for changes meant to make the pass faster without changing what it keeps
 * (issue 31). `npx tsx scripts/excerpt-golden.ts` writes the fixture from the current code.
 */
export const GOLDEN = new URL('../fixtures/excerpt-golden/sha256.json', import.meta.url);

export const BUDGETS = [30, 60, 100, 150] as const;

const FIXTURES = new URL('../fixtures/', import.meta.url);

/** Every stored log: the excerpt's dev set, the Actions logs, the CI-systems dev set, the infrastructure failures. */
function storedLogs(): Array<{ name: string; text: string }> {
  const flat = ['excerpt-dev-set/logs/', 'ci-logs-dev/logs/', 'infra-failures/logs/'].flatMap((folder) =>
    readdirSync(new URL(folder, FIXTURES))
      .filter((file) => file.endsWith('.log'))
      .map((file) => `${folder}${file}`),
  );
  const jobs = readdirSync(new URL('gha-logs/', FIXTURES), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `gha-logs/${entry.name}/job.log`);
  return [...flat, ...jobs]
    .sort()
    .map((name) => ({ name, text: readFileSync(new URL(name, FIXTURES), 'utf8') }));
}

/** `log@budget` → sha256 of the excerpt as JSON; one more run per log under a character budget. */
export async function excerptHashes(): Promise<Record<string, string>> {
  const hashes: Record<string, string> = {};
  for (const { name, text } of storedLogs()) {
    for (const maxLines of BUDGETS)
      hashes[`${name}@${maxLines}`] = sha256(await excerptLog(text, { maxLines }));
    hashes[`${name}@150/4000c`] = sha256(await excerptLog(text, { maxLines: 150, maxCharacters: 4000 }));
  }
  return hashes;
}

function sha256(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}
