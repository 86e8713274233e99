import { mkdtemp, open, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { timedPass } from './excerpt-alone.js';
import { markdownTable } from './stats.js';

// The excerpt's throughput on each CI system's log structure: the development set's logs of one
// system (test/fixtures/ci-logs-dev/logs/<system>--<tool>.log) concatenated to a large log, one pass
// each. The Actions dataset measures one structure; the others mark their steps, sections and verdicts
// in their own ways, and read differently (GitLab's sections end with `\r`, Buildkite's timestamps are
// escape sequences, a job's verdict comes after the cleanup).

const LOGS = fileURLToPath(new URL('../test/fixtures/ci-logs-dev/logs/', import.meta.url));
/** Each system's log: large enough that one pass is timed over many of its steps and verdicts. */
const SHAPE_BYTES = 48 * 1024 * 1024;

export interface ShapeRate {
  system: string;
  megabytes: number;
  logs: number;
  wallRate: number;
  cpuRate: number;
}

export async function measureShapes(budget: number): Promise<ShapeRate[]> {
  const files = (await readdir(LOGS)).filter((file) => file.endsWith('.log')).sort();
  const systems = [...new Set(files.map((file) => file.slice(0, file.indexOf('--'))))];
  const directory = await mkdtemp(join(tmpdir(), 'bench-shapes-'));
  try {
    const rates: ShapeRate[] = [];
    for (const system of systems) {
      const own = files.filter((file) => file.startsWith(`${system}--`));
      const path = join(directory, `${system}.log`);
      const file = await open(path, 'w');
      let written = 0;
      while (written < SHAPE_BYTES) {
        for (const log of own) {
          const bytes = await readFile(join(LOGS, log));
          await file.write(bytes);
          written += bytes.length;
        }
      }
      await file.close();
      const megabytes = (await stat(path).then((info) => info.size)) / 2 ** 20;
      const time = await timedPass(path, budget);
      rates.push({
        system,
        megabytes,
        logs: own.length,
        wallRate: megabytes / time.wall,
        cpuRate: megabytes / time.cpu,
      });
      await rm(path);
    }
    return rates;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

export function shapesSection(rates: ShapeRate[]): string[] {
  return [
    "By CI system: each system's logs of the development set concatenated to one log (real tools' failures, so far " +
      'denser in failures than the Actions dataset: more of each log is read closely), one pass each:',
    '',
    markdownTable(
      ['CI system', 'logs (repeated)', 'MB', 'MB/s (wall)', 'MB/s (per CPU-second)'],
      rates.map((rate) => [
        rate.system,
        String(rate.logs),
        rate.megabytes.toFixed(0),
        rate.wallRate.toFixed(0),
        rate.cpuRate.toFixed(0),
      ]),
    ),
  ];
}
