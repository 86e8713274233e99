import { createReadStream } from 'node:fs';
import { mkdtemp, open, readFile, rm, stat } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { excerptLog } from '../src/ci-logs/excerpt-log.js';
import { timedPass, timedPassAlone } from './excerpt-alone.js';
import { markdownTable, percentile } from './stats.js';

// The excerpt's throughput and memory on a log of at least 500 MB made by concatenating the given
// logs, beside a bare read-and-count-lines pass and a naive split, and beside the same pass in a
// process of its own (bench/excerpt-alone.ts).

/** The concatenated log's least size: large enough that start-up and the first compilations vanish in it. */
const LARGE_BYTES = 500 * 1024 * 1024;

export interface Throughput {
  megabytes: number;
  lines: number;
  newlines: number;
  /** Median MB/s over the rounds: wall clock, and per CPU-second (steadier on a shared machine). */
  countRate: number;
  splitRate: number;
  excerptRate: number;
  excerptCpuRate: number;
  /** The same pass in a process of its own, started in each round beside this one's. */
  aloneRate: number;
  aloneCpuRate: number;
  /** Median over the rounds of this process's rate per CPU-second over the lone process's, each round's pair side by side. */
  hereToAlone: number;
  rssBefore: number;
  rssAfter: number;
  rssPeak: number;
  /** The machine's 1-minute load average after the rounds, beside its cores. */
  load: number;
}

const ROUNDS = 3;

/** A full collection where the bench runs with --expose-gc (`npm run bench` does); nothing otherwise. */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * Three rounds, each reading the large log four ways: the excerpt in this process, the excerpt in
 * a process of its own (so a slower pass here shows beside it, on the machine of the same moment),
 * counting newlines in the raw bytes (the floor any reader pays), and decoding UTF-8 and splitting
 * into lines (what a naive line reader pays).
 */
export async function measureThroughput(logs: string[], budget: number): Promise<Throughput> {
  const directory = await mkdtemp(join(tmpdir(), 'bench-excerpt-'));
  const path = join(directory, 'large.log');
  try {
    const file = await open(path, 'w');
    let written = 0;
    while (written < LARGE_BYTES) {
      for (const log of logs) {
        const bytes = await readFile(log);
        await file.write(bytes);
        written += bytes.length;
      }
    }
    await file.close();
    const megabytes = (await stat(path)).size / 2 ** 20;
    const chunks = () => createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>;
    // Memory first, on a quiet heap: the baselines' own garbage would count against the excerpt.
    collectGarbage();
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }, 20);
    const { totalLines: lines } = await excerptLog(chunks(), { maxLines: budget });
    clearInterval(sampler);
    const rssAfter = process.memoryUsage().rss;
    rssPeak = Math.max(rssPeak, rssAfter);
    const rates = {
      count: [] as number[],
      split: [] as number[],
      excerpt: [] as number[],
      cpu: [] as number[],
      alone: [] as number[],
      aloneCpu: [] as number[],
    };
    let newlines = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // Every pass starts on a collected heap: the naive split leaves some 500 MB of strings, and
      // without this the next round's excerpt paid for collecting them (about a third of its time).
      collectGarbage();
      const here = await timedPass(path, budget);
      rates.excerpt.push(megabytes / here.wall);
      rates.cpu.push(megabytes / here.cpu);
      const alone = await timedPassAlone(path, budget);
      rates.alone.push(megabytes / alone.wall);
      rates.aloneCpu.push(megabytes / alone.cpu);
      let started = performance.now();
      for await (const chunk of chunks()) {
        for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, index + 1)) newlines++;
      }
      rates.count.push(megabytes / ((performance.now() - started) / 1000));
      collectGarbage();
      started = performance.now();
      const decoder = new TextDecoder();
      let carry = '';
      for await (const chunk of chunks()) {
        const split = (carry + decoder.decode(chunk, { stream: true })).split('\n');
        carry = split.pop() ?? '';
      }
      rates.split.push(megabytes / ((performance.now() - started) / 1000));
    }
    return {
      megabytes,
      lines,
      newlines: newlines / ROUNDS,
      countRate: percentile(rates.count, 0.5),
      splitRate: percentile(rates.split, 0.5),
      excerptRate: percentile(rates.excerpt, 0.5),
      excerptCpuRate: percentile(rates.cpu, 0.5),
      aloneRate: percentile(rates.alone, 0.5),
      aloneCpuRate: percentile(rates.aloneCpu, 0.5),
      hereToAlone: percentile(
        rates.cpu.map((rate, round) => rate / rates.aloneCpu[round]!),
        0.5,
      ),
      rssBefore,
      rssAfter,
      rssPeak,
      load: loadavg()[0] ?? 0,
    };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** The throughput and memory part of the excerpt's section in BENCHMARKS.md. */
export function throughputSection(throughput: Throughput): string[] {
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
  return [
    `Throughput on a ${throughput.megabytes.toFixed(0)} MB log (the dataset concatenated: ${throughput.lines.toLocaleString('en-US')} lines, ` +
      `${throughput.newlines.toLocaleString('en-US')} \`\\n\` bytes), ` +
      `read in 1 MB chunks; median of ${ROUNDS} rounds, each pass beside its baselines. The process has loaded ioredis, ` +
      'as a worker with the Redis queue has (a String subclass there once slowed the excerpt by a third):',
    '',
    markdownTable(
      ['pass', 'MB/s (wall)', 'MB/s (per CPU-second)', 'ratio to reading'],
      [
        ['baseline: read, count newlines', throughput.countRate.toFixed(0), '—', '1.00'],
        [
          'baseline: read, decode UTF-8, split lines',
          throughput.splitRate.toFixed(0),
          '—',
          (throughput.splitRate / throughput.countRate).toFixed(2),
        ],
        [
          'excerptLog',
          throughput.excerptRate.toFixed(0),
          throughput.excerptCpuRate.toFixed(0),
          (throughput.excerptRate / throughput.countRate).toFixed(2),
        ],
        [
          'excerptLog in a process of its own',
          throughput.aloneRate.toFixed(0),
          throughput.aloneCpuRate.toFixed(0),
          (throughput.aloneRate / throughput.countRate).toFixed(2),
        ],
      ],
    ),
    '',
    `Per CPU-second, the pass in this process ran at ${throughput.hereToAlone.toFixed(2)} times its rate in a process ` +
      "of its own (median over the rounds of each round's pair: the same Node, loader, flags and ioredis, started right " +
      "after this process's pass, so both meet the machine of the same minute). Where the pass's time goes, and what " +
      'was tried to shorten it: docs/ci-logs.md, "Throughput".',
    '',
    `Load average after the rounds: ${throughput.load.toFixed(1)} on ${availableParallelism()} cores. ` +
      "Above the core count the wall-clock rates measure the machine's other work more than the pass: the process " +
      'waits for a core (its CPU time is a fraction of the wall time), the baselines fall with it, and even the rate per ' +
      'CPU-second drops (shared caches and cores): the same build ran at 134–152 MB per CPU-second at load 0.1 and at ' +
      '45–70 at load 16–18. Compare wall rates only at a load below the core count, and rates of different runs only at ' +
      'the same load.',
    '',
    markdownTable(
      ['RSS before an excerpt pass', 'after it', 'peak during it', 'growth (peak − before)'],
      [
        [
          mib(throughput.rssBefore),
          mib(throughput.rssAfter),
          mib(throughput.rssPeak),
          mib(throughput.rssPeak - throughput.rssBefore),
        ],
      ],
    ),
  ];
}
