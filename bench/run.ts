import { readFile, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { benchContext } from './context.js';
import { benchEndToEnd } from './e2e.js';
import { benchEnvironment } from './environment.js';
import { benchExcerpt } from './excerpt.js';
import { benchExcerptQuality } from './excerpt-quality.js';
import { benchModel } from './model.js';
import { benchQueue } from './queue.js';
import { benchRealProjects } from './real-projects.js';
import { benchRedact } from './redact.js';
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
  excerpt: benchExcerpt,
  'excerpt-quality': benchExcerptQuality,
  queue: benchQueue,
  e2e: benchEndToEnd,
  environment: benchEnvironment,
  'real-projects': benchRealProjects,
  model: benchModel,
  redact: benchRedact,
};

const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
const only = process.argv.slice(2);
const sections = new Map<string, string>();
for (const [name, bench] of Object.entries(benches)) {
  if (only.length > 0 && !only.includes(name)) continue;
  process.stderr.write(`running bench/${name}…\n`);
  const section = stamped(await bench());
  process.stdout.write(`${section}\n\n`);
  sections.set(name, section);
}

/** Each section says when and where it was measured, since a partial run keeps the others as they were. */
function stamped(section: string): string {
  const [heading, ...rest] = section.split('\n');
  return [heading, '', `_Measured on ${new Date().toISOString().slice(0, 10)}: ${machine}._`, ...rest].join(
    '\n',
  );
}

// A partial run (`npm run bench -- excerpt`) replaces only its own sections and keeps the others' figures.
const file = new URL('../BENCHMARKS.md', import.meta.url);
const previous = only.length > 0 ? await readFile(file, 'utf8').catch(() => '') : '';
const previousSections = previous
  .split(/^(?=## )/m)
  .slice(1)
  .map((section) => [/`bench\/([\w-]+)\.ts`/.exec(section)?.[1] ?? '', section.trimEnd()] as const);
const kept = new Map(previousSections);
// Sections no bench writes (measured by a script, such as the executor images' build) stay, first, as they were.
const measuredElsewhere = previousSections
  .filter(([name]) => !(name in benches))
  .map(([, section]) => section);
const ordered = [
  ...measuredElsewhere,
  ...Object.keys(benches)
    .map((name) => sections.get(name) ?? kept.get(name))
    .filter((section): section is string => section !== undefined),
];

const document = [
  '# Benchmarks',
  '',
  'Written by `npm run bench`; each section names the day and the machine it was measured on.',
  'Every figure has its baseline measured in the same run; ratios are ours ÷ baseline.',
  '',
  ...ordered.flatMap((section) => [section, '']),
].join('\n');
await writeFile(file, document);
