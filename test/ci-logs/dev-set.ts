import { readdirSync, readFileSync } from 'node:fs';
import { excerptLog } from '../../src/ci-logs/index.js';

/**
 * The development set (test/fixtures/ci-logs-dev, built by its tools.sh and wrap.ts):
 * real tools' failures inside each CI system's log structure, the explaining lines
 * labelled by number. Measures the excerpt beside `tail -n 150` on every log.
 */
export const DEV_SET = new URL('../fixtures/ci-logs-dev/logs/', import.meta.url);
export const BUDGET = 150;

export interface Sidecar {
  system: string;
  toolchain: string;
  scenario: string;
  command: string;
  exitCode: number | null;
  labelled: number[];
}

export interface Measured {
  name: string;
  sidecar: Sidecar;
  detected: string;
  labelled: number;
  excerptKept: number;
  tailKept: number;
  excerptLines: number;
  tailLines: number;
}

export function devLogs(): string[] {
  return readdirSync(DEV_SET)
    .filter((name) => name.endsWith('.log'))
    .map((name) => name.slice(0, -4))
    .sort();
}

export async function measureLog(name: string): Promise<Measured> {
  const text = readFileSync(new URL(`${name}.log`, DEV_SET), 'utf8');
  const sidecar = JSON.parse(readFileSync(new URL(`${name}.json`, DEV_SET), 'utf8')) as Sidecar;
  const excerpt = await excerptLog(text, { maxLines: BUDGET });
  const labelled = new Set(sidecar.labelled);
  const tail = tailNumbers(text, BUDGET);
  return {
    name,
    sidecar,
    detected: excerpt.system,
    labelled: labelled.size,
    excerptKept: excerpt.lines.filter((line) => labelled.has(line.n)).length,
    tailKept: [...labelled].filter((number) => tail.numbers.has(number)).length,
    excerptLines: excerpt.lines.length,
    tailLines: tail.lines,
  };
}

/**
 * What `tail -n N` prints, as the excerpt's line numbers: the last N lines split on `\n`
 * alone, each spanning as many numbers as it has `\r`-separated segments.
 */
export function tailNumbers(text: string, count: number): { numbers: Set<number>; lines: number } {
  const physical = text.split('\n');
  if (physical.at(-1) === '') physical.pop();
  const numbers = new Set<number>();
  let number = 0;
  physical.forEach((line, index) => {
    const segments = line.replace(/\r$/, '').split('\r').length;
    for (let segment = 0; segment < segments; segment++) {
      number++;
      if (index >= physical.length - count) numbers.add(number);
    }
  });
  return { numbers, lines: Math.min(count, physical.length) };
}

export interface Aggregate {
  group: string;
  logs: number;
  labelled: number;
  excerptRecall: number;
  tailRecall: number;
  excerptPrecision: number;
  tailPrecision: number;
  excerptLines: number;
  tailLines: number;
  /** Logs whose every labelled line is kept. */
  excerptWhole: number;
  tailWhole: number;
}

export function aggregate(group: string, rows: Measured[]): Aggregate {
  const sum = (key: 'labelled' | 'excerptKept' | 'tailKept' | 'excerptLines' | 'tailLines') =>
    rows.reduce((total, row) => total + row[key], 0);
  const median = (values: number[]) => {
    const sorted = [...values].sort((left, right) => left - right);
    return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
  };
  return {
    group,
    logs: rows.length,
    labelled: sum('labelled'),
    excerptRecall: sum('excerptKept') / sum('labelled'),
    tailRecall: sum('tailKept') / sum('labelled'),
    excerptPrecision: sum('excerptKept') / sum('excerptLines'),
    tailPrecision: sum('tailKept') / sum('tailLines'),
    excerptLines: median(rows.map((row) => row.excerptLines)),
    tailLines: median(rows.map((row) => row.tailLines)),
    excerptWhole: rows.filter((row) => row.excerptKept === row.labelled).length,
    tailWhole: rows.filter((row) => row.tailKept === row.labelled).length,
  };
}

export function groupBy(rows: Measured[], key: (row: Measured) => string): Aggregate[] {
  const groups = new Map<string, Measured[]>();
  for (const row of rows) groups.set(key(row), [...(groups.get(key(row)) ?? []), row]);
  return [...groups.entries()]
    .sort(([left], [right]) => left.localeCompare(right))
    .map(([group, members]) => aggregate(group, members));
}

export function markdown(title: string, aggregates: Aggregate[]): string {
  const pct = (value: number) => `${(100 * value).toFixed(1)}%`;
  return [
    `| ${title} | logs | labelled lines | recall (excerpt / tail) | precision (excerpt / tail) | logs kept whole (excerpt / tail) | median lines (excerpt / tail) |`,
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...aggregates.map(
      (row) =>
        `| ${row.group} | ${row.logs} | ${row.labelled} | ${pct(row.excerptRecall)} / ${pct(row.tailRecall)} | ${pct(row.excerptPrecision)} / ${pct(row.tailPrecision)} | ${row.excerptWhole} / ${row.tailWhole} | ${row.excerptLines} / ${row.tailLines} |`,
    ),
  ].join('\n');
}
