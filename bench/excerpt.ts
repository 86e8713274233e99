import { createReadStream } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// Loaded as in a worker with the Redis queue: its String subclass changes how V8 compiles string
// method calls (docs/ci-logs.md, "String methods"), so the excerpt is measured in that state.
import 'ioredis';
import { excerptLog } from '../src/ci-logs/excerpt-log.js';
import {
  aggregate,
  devLogs,
  groupBy,
  type Measured,
  markdown,
  measureLog as measureDevLog,
} from '../test/ci-logs/dev-set.js';
import { measureShapes, type ShapeRate, shapesSection } from './excerpt-shapes.js';
import { measureThroughput, type Throughput, throughputSection } from './excerpt-throughput.js';
import { markdownTable, percentile } from './stats.js';

/**
 * The log excerpt over the labelled Actions logs in ../shared/data/gha-logs,
 * beside `tail -n 150` of the same logs: which failing tests each keeps, and
 * how many lines it takes; the development set (test/fixtures/ci-logs-dev: real tools'
 * failures in eight CI systems' log structure, lines labelled) per CI system and
 * toolchain, beside the tail. Then throughput and memory on a log of ≥ 500 MB made by
 * concatenating the dataset, beside a bare read-and-count-lines pass.
 *
 * The labels spell test names as BugSwarm rewrote them (pytest `a/b.py::t` →
 * `a.b::t`, Maven `Class.method` → `method(pkg.Class)`, Gradle `Class > method`
 * → `Class.method`, mocha titles joined across lines), so each name is first
 * located in the log in a form the log writes; names that cannot be located
 * are counted apart and left out of recall.
 */
const DATASET = fileURLToPath(new URL('../../shared/data/gha-logs/', import.meta.url));
const BUDGET = 150;

interface Labels {
  framework: string;
  failed: boolean;
  failed_tests: string[];
  exit_code: number | null;
}

interface Row {
  log: string;
  located: number;
  names: number;
  excerptKept: number;
  tailKept: number;
  excerptLines: number;
  tailLines: number;
  stepFound: boolean;
  exitMatches: boolean;
  missed: string[];
  unlocated: string[];
  failed: boolean;
}

export async function benchExcerpt(): Promise<string> {
  const logs = (await readdir(DATASET, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const rows: Row[] = [];
  for (const log of logs) rows.push(await measureLog(log));
  const dev: Measured[] = [];
  for (const name of devLogs()) dev.push(await measureDevLog(name));
  const throughput = await measureThroughput(
    logs.map((log) => join(DATASET, log, 'job.log')),
    BUDGET,
  );
  const shapes = await measureShapes(BUDGET);
  return report(rows, dev, throughput, shapes);
}

async function measureLog(log: string): Promise<Row> {
  const path = join(DATASET, log, 'job.log');
  const labels = JSON.parse(await readFile(join(DATASET, log, 'labels.json'), 'utf8')) as Labels;
  const bytes = await readFile(path);
  const text = bytes.toString('utf8');
  const cleaned = text
    .split(/\r\n|\n|\r/)
    .map((line) => stripForTail(line.replace(/^\d{4}-\d\d-\d\dT[\d:.]+Z ?/, '')))
    .join('\n');
  const excerpt = await excerptLog(createReadStream(path, { highWaterMark: 1 << 20 }), { maxLines: BUDGET });
  const tail = tailLines(text, BUDGET);
  const row: Row = {
    log,
    located: 0,
    names: labels.failed_tests.length,
    excerptKept: 0,
    tailKept: 0,
    excerptLines: excerpt.lines.length,
    tailLines: tail.length,
    stepFound: labels.failed === (excerpt.failingStep !== null),
    exitMatches: labels.exit_code === null || excerpt.exitCode === labels.exit_code,
    missed: [],
    unlocated: [],
    failed: labels.failed,
  };
  for (const name of labels.failed_tests) {
    const forms = locate(name, cleaned);
    if (forms.length === 0) {
      row.unlocated.push(name);
      continue;
    }
    row.located++;
    const holds = (text: string) => forms.some((form) => text.includes(form));
    if (excerpt.lines.some((line) => holds(line.text))) row.excerptKept++;
    else row.missed.push(forms[0]!);
    if (tail.some((line) => holds(stripForTail(line)))) row.tailKept++;
  }
  return row;
}

/** What `tail -n N` prints: the last N lines split on `\n` alone. */
function tailLines(text: string, count: number): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.slice(-count);
}

/** Without colour codes, which would split a test name that the log paints. */
function stripForTail(line: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing escape sequences is the point.
  return line.replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '');
}

/** The spellings of a labelled name that occur in the log (a runner may write it more than one way). */
function locate(name: string, log: string): string[] {
  return spellings(name).filter((form) => form.length >= 4 && log.includes(form));
}

function spellings(name: string): string[] {
  const forms = [name];
  const bare = name.replace(/:$/, '');
  const collection = /^\(([\w.-]+)\)$/.exec(name);
  if (collection)
    forms.push(`${collection[1]!.replaceAll('.', '/')}.py`, `${collection[1]!.replaceAll('.', '/')} `);
  if (name.includes('::')) {
    const [module = '', ...rest] = name.split('::');
    forms.push(`${module.replaceAll('.', '/')}.py::${rest.join('::')}`);
  }
  const maven = /^([^(]+)\(([\w.$]+)\)$/.exec(name);
  if (maven) {
    const [, method = '', type = ''] = maven;
    const simple = type.split('.').at(-1) ?? type;
    forms.push(`${type}.${method}`, `${simple}.${method}`, `${simple.split('$').at(-1)}.${method}`);
    // Parameterised invocations (`name{ArgumentsAccessor}[1]`) are specific enough on their own.
    if (/[[{]/.test(method)) forms.push(method);
  }
  const java = /^((?:[\w$]+\.)*[\w$]+)\.([^.([]+(?:\(.*?\))?(?:\[.*\])?)$/.exec(name);
  if (java && !name.includes(' ')) {
    const [, type = '', member = ''] = java;
    const simple = type.split('.').at(-1) ?? type;
    const method = member.replace(/\(.*\)$/, '');
    forms.push(
      `${simple.replaceAll('$', ' > ')} > ${member}`,
      `${simple}:${method}`,
      `${simple.replaceAll('$', '.')}::${method}`,
      `${method}(${type})`,
      `${simple}.${member}`,
      `Testcase: ${method}`,
    );
  }
  const gradleSpaced = /^([\w$]+)\.(.+)$/.exec(name);
  if (gradleSpaced && name.includes(' ')) forms.push(`${gradleSpaced[1]} > ${gradleSpaced[2]}`);
  // Mocha titles joined across lines: the longest tail of the words that the log writes on one line.
  const words = bare.split(' ');
  for (let start = 1; start < words.length; start++) {
    const rest = words.slice(start).join(' ');
    if (rest.length >= 12) forms.push(`${rest}:`, rest);
  }
  return forms;
}

function report(rows: Row[], dev: Measured[], throughput: Throughput, shapes: ShapeRate[]): string {
  const withNames = rows.filter((row) => row.located > 0);
  const sizes = (label: string, fraction: number) => [
    label,
    percentile(
      rows.map((row) => row.excerptLines),
      fraction,
    ),
    percentile(
      rows.map((row) => row.tailLines),
      fraction,
    ),
  ];
  const located = sum(rows, 'located');
  const excerptKept = sum(rows, 'excerptKept');
  const tailKept = sum(rows, 'tailKept');
  const table = markdownTable(
    ['log', 'failing tests located', 'excerpt keeps', 'tail keeps', 'excerpt lines', 'tail lines'],
    rows.map((row) => [
      row.log,
      `${row.located}/${row.names}`,
      row.located > 0 ? `${row.excerptKept}/${row.located}` : '—',
      row.located > 0 ? `${row.tailKept}/${row.located}` : '—',
      row.excerptLines,
      row.tailLines,
    ]),
  );
  const missed = rows.flatMap((row) => row.missed.map((form) => `- ${row.log}: \`${form}\``));
  const unlocated = rows.flatMap((row) => row.unlocated.map((name) => `${row.log}: \`${name}\``));
  return [
    '## Log excerpt (`bench/excerpt.ts`)',
    '',
    `${rows.length} labelled Actions job logs (../shared/data/gha-logs), budget ${BUDGET} lines, beside \`tail -n ${BUDGET}\` ` +
      'of the same logs. A failing test counts as kept when a kept line holds the name in the form the log writes it.',
    '',
    markdownTable(
      ['', 'excerpt', `tail -n ${BUDGET}`],
      [
        [
          'failing tests kept (recall)',
          `${excerptKept}/${located} (${pct(excerptKept, located)})`,
          `${tailKept}/${located} (${pct(tailKept, located)})`,
        ],
        [
          'logs keeping all their located tests',
          `${withNames.filter((row) => row.excerptKept === row.located).length}/${withNames.length}`,
          `${withNames.filter((row) => row.tailKept === row.located).length}/${withNames.length}`,
        ],
        sizes('median lines', 0.5),
        sizes('p90 lines', 0.9),
        [
          'failing step named for failed jobs, none for passed ones',
          `${rows.filter((row) => row.stepFound).length}/${rows.length}`,
          '—',
        ],
        ['exit code as labelled', `${rows.filter((row) => row.exitMatches).length}/${rows.length}`, '—'],
      ],
    ),
    '',
    `Names not located in their log (rewrites the locator cannot undo): ${sum(rows, 'names') - located} of ${sum(rows, 'names')}` +
      `${unlocated.length > 0 ? ` — ${unlocated.join('; ')}` : ''}.`,
    missed.length > 0
      ? `\nLocated but not kept:\n${missed.join('\n')}`
      : '\nEvery located failing test is kept.',
    '',
    '<details><summary>Per log</summary>',
    '',
    table,
    '',
    '</details>',
    '',
    `The development set: ${dev.length} logs, real tools' failures in each CI system's log structure, the explaining ` +
      `lines labelled (test/fixtures/ci-logs-dev). Recall and precision over labelled lines, budget ${BUDGET}:`,
    '',
    markdown('CI system', [...groupBy(dev, (row) => row.sidecar.system), aggregate('all', dev)]),
    '',
    markdown(
      'toolchain',
      groupBy(dev, (row) => row.sidecar.toolchain),
    ),
    '',
    ...throughputSection(throughput),
    '',
    ...shapesSection(shapes),
    '',
    goals(rows, dev, throughput),
  ].join('\n');
}

function sum(rows: Row[], key: 'located' | 'names' | 'excerptKept' | 'tailKept'): number {
  return rows.reduce((total, row) => total + row[key], 0);
}

function pct(part: number, whole: number): string {
  return whole === 0 ? '—' : `${((100 * part) / whole).toFixed(1)}%`;
}

/** The issue's goals, each with its verdict. */
function goals(rows: Row[], dev: Measured[], throughput: Throughput): string {
  const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
  const all = aggregate('all', dev);
  const growth = (throughput.rssPeak - throughput.rssBefore) / 2 ** 20;
  return [
    `Goals: failing tests kept at least as often as by the tail — ${verdict(sum(rows, 'excerptKept') >= sum(rows, 'tailKept'))}; `,
    `development set recall ≥ the tail's and precision above it — ${verdict(all.excerptRecall >= all.tailRecall && all.excerptPrecision > all.tailPrecision)}; `,
    `≥ 200 MB/s — ${verdict(throughput.excerptRate >= 200)} (${throughput.excerptRate.toFixed(0)}; ${throughput.excerptCpuRate.toFixed(0)} per CPU-second); `,
    `≤ 64 MB RSS growth — ${verdict(growth <= 64)} (${growth.toFixed(0)} MB).`,
  ].join('');
}
