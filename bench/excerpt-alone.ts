import { execFile } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
// Loaded here too, so that the pass in a process of its own differs from the benchmark's in nothing
// but the process (see bench/excerpt.ts).
import 'ioredis';
import { excerptLog } from '../src/ci-logs/excerpt-log.js';

/** Seconds one excerpt pass took: on the wall clock, and of the process's CPU. */
export interface PassTime {
  wall: number;
  cpu: number;
}

/** One excerpt pass over the log at `path`, read in 1 MB chunks, in this process. */
export async function timedPass(path: string, maxLines: number): Promise<PassTime> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await excerptLog(createReadStream(path, { highWaterMark: 1 << 20 }), { maxLines });
  const used = process.cpuUsage(cpu);
  return { wall: (performance.now() - started) / 1000, cpu: (used.user + used.system) / 1e6 };
}

/**
 * The same pass in a new process started as this one was (the same Node, loader and flags), timed
 * there around the pass alone: nothing the benchmark's process did before (the dataset passes, the
 * baselines' garbage, what it holds) can weigh on it.
 */
export async function timedPassAlone(path: string, maxLines: number): Promise<PassTime> {
  const script = fileURLToPath(import.meta.url);
  const { stdout } = await promisify(execFile)(process.execPath, [
    ...process.execArgv,
    script,
    path,
    String(maxLines),
  ]);
  return JSON.parse(stdout) as PassTime;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(JSON.stringify(await timedPass(process.argv[2] ?? '', Number(process.argv[3]))));
}
