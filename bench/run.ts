import { writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { benchContext } from './context.js';
import { benchSandbox } from './sandbox.js';
import { benchWebhook } from './webhook.js';

/**
 * Runs every benchmark and writes BENCHMARKS.md. Benchmarks print tables;
 * they assert nothing. Figures on this 2-core machine are noisy: compare
 * rows of one run (each has its baseline beside it), not runs across days.
 */
const benches: Record<string, () => Promise<string>> = {
  sandbox: benchSandbox,
  context: benchContext,
  webhook: benchWebhook,
};

const only = process.argv.slice(2);
const sections: string[] = [];
for (const [name, bench] of Object.entries(benches)) {
  if (only.length > 0 && !only.includes(name)) continue;
  process.stderr.write(`running bench/${name}…\n`);
  const section = await bench();
  process.stdout.write(`${section}\n\n`);
  sections.push(section);
}

const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
const document = [
  '# Benchmarks',
  '',
  `Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: ${machine}.`,
  'Every figure has its baseline measured in the same run; ratios are ours ÷ baseline.',
  '',
  ...sections.flatMap((section) => [section, '']),
].join('\n');
if (only.length === 0) await writeFile(new URL('../BENCHMARKS.md', import.meta.url), document);
