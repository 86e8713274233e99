import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Docker from 'dockerode';
import { BullmqJobStore } from '../src/adapters/bullmq/bullmq-store.js';
import { SqliteJobStore } from '../src/adapters/sqlite/sqlite-store.js';
import { Worker } from '../src/jobs/worker.js';
import type { JobRequest } from '../src/queue/job-request.js';
import { type JobResult, type JobStore, NO_LINKS } from '../src/queue/job-store.js';
import { MemoryJobStore } from '../src/queue/memory-store.js';
import { jobRequest, mentionTrigger } from '../test/fakes/job-requests.js';
import { GitHttpServer } from '../test/helpers/git-http-server.js';
import { SqliteCodeHost } from '../test/queue/fault/sqlite-code-host.js';
import { markdownTable, ms, summary } from './stats.js';

/**
 * The queue adapters side by side, memory being the baseline:
 * (a) enqueue throughput, one at a time and 50 in flight;
 * (b) pick-up latency, from enqueue to the handler starting, when the worker
 *     shares the store object (same process) and when it has its own (as a
 *     worker process would);
 * (c) 20 real jobs (git clone, sandbox, scripted model, push, pull request)
 *     at once in one worker process, beside the default 2 at a time: wall
 *     time and the worker's peak RSS.
 */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ENQUEUES = Number.parseInt(process.env.BENCH_ENQUEUES ?? '2000', 10);
const PICKUPS = Number.parseInt(process.env.BENCH_PICKUPS ?? '50', 10);
const JOBS = 20;

interface Adapter {
  name: string;
  open(): Promise<JobStore>;
  cleanup(): Promise<void>;
}

export async function benchQueue(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-queue-'));
  try {
    const adapters = [memory(), sqlite(dir), redis()];
    const throughput: (string | number)[][] = [];
    const pickup: (string | number)[][] = [];
    for (const adapter of adapters) {
      throughput.push(await enqueueRow(adapter));
      pickup.push(await pickupRow(adapter, 'same store', 1000));
      if (adapter.name === 'sqlite') {
        pickup.push(await pickupRow(adapter, 'other store (file watch, 1 s poll behind it)', 1000));
      }
      if (adapter.name.startsWith('redis'))
        pickup.push(await pickupRow(adapter, 'other store (blocking fetch)', 1000));
    }
    const jobs = [await concurrentJobs(dir, 2), await concurrentJobs(dir, JOBS)];
    return [
      '## Queue (`bench/queue.ts`)',
      '',
      `Memory is the baseline. SQLite runs with WAL and \`synchronous = NORMAL\` (an accepted job survives the process being killed); Redis is ${REDIS_URL} on this host.`,
      '',
      markdownTable(
        ['adapter', `enqueue ×${ENQUEUES}, one at a time`, '50 in flight', 'ratio to memory'],
        throughput,
      ),
      '',
      markdownTable(['adapter', 'worker', 'samples', 'pick-up median', 'p90'], pickup),
      '',
      markdownTable(
        [
          'jobs',
          'at once',
          'sandbox',
          'wall time',
          'job median',
          'job p90',
          'not fixed (errors)',
          'worker peak RSS',
          'containers left',
        ],
        jobs,
      ),
      '',
      `Goal (20 concurrent jobs): no errors and peak RSS ≤ 1 GB — ${
        jobs.every((row) => row[6] === 0 && Number.parseInt(String(row[7]), 10) <= 1024) ? 'met' : 'NOT met'
      }.`,
      '',
      'Another store stands for another process: SQLite wakes its workers when the file changes (a folder watch, ' +
        "with the poll only as a fallback); BullMQ's blocking fetch picks a job up at once. The jobs table uses the fault test's worker process " +
        '(test/queue/fault/worker-process.ts): real git over HTTP, real sandboxes, a scripted model with 0.4 s per answer.',
    ].join('\n');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function memory(): Adapter {
  return { name: 'memory', open: async () => new MemoryJobStore(), cleanup: async () => {} };
}

function sqlite(dir: string): Adapter {
  let path = '';
  return {
    name: 'sqlite',
    open: async () => {
      path ||= join(dir, `${randomUUID()}.db`);
      return new SqliteJobStore(path);
    },
    cleanup: async () => {
      path = '';
    },
  };
}

function redis(): Adapter {
  let queueName = '';
  return {
    name: 'redis (BullMQ)',
    open: async () => {
      queueName ||= `bench-${randomUUID()}`;
      return new BullmqJobStore({ url: REDIS_URL, queueName, prefix: 'selfdebug-bench' });
    },
    cleanup: async () => {
      const store = new BullmqJobStore({ url: REDIS_URL, queueName, prefix: 'selfdebug-bench' });
      await store.obliterate();
      await store.close();
      queueName = '';
    },
  };
}

let baselinePerSecond = 0;

async function enqueueRow(adapter: Adapter): Promise<(string | number)[]> {
  const store = await adapter.open();
  try {
    let started = performance.now();
    for (let index = 0; index < ENQUEUES; index++) await store.enqueue(request(index));
    const sequential = ENQUEUES / ((performance.now() - started) / 1000);
    started = performance.now();
    for (let batch = 0; batch < ENQUEUES; batch += 50)
      await Promise.all(
        Array.from({ length: 50 }, (_, index) => store.enqueue(request(ENQUEUES + batch + index))),
      );
    const parallel = ENQUEUES / ((performance.now() - started) / 1000);
    if (adapter.name === 'memory') baselinePerSecond = sequential;
    return [
      adapter.name,
      `${Math.round(sequential)} /s`,
      `${Math.round(parallel)} /s`,
      (sequential / baselinePerSecond).toFixed(3),
    ];
  } finally {
    await store.close();
    await adapter.cleanup();
  }
}

async function pickupRow(adapter: Adapter, label: string, pollMs: number): Promise<(string | number)[]> {
  const producer = await adapter.open();
  const consumer = label === 'same store' ? producer : await adapter.open();
  const started = new Map<string, number>();
  const worker = new Worker({
    store: consumer,
    pollMs,
    handler: async (job): Promise<JobResult> => {
      started.set(job.request.id, performance.now());
      return { outcome: 'done', reason: null, attempts: 0, tokens: 0, costUsd: 0, links: NO_LINKS };
    },
  }).start();
  const samples: number[] = [];
  try {
    await sleep(200);
    for (let index = 0; index < PICKUPS; index++) {
      const job = request(index);
      // Enqueued at a random moment of the worker's idle wait, as webhooks arrive.
      await sleep(Math.random() * pollMs);
      const sent = performance.now();
      await producer.enqueue(job);
      while (!started.has(job.id)) await sleep(1);
      samples.push(started.get(job.id)! - sent);
    }
  } finally {
    await worker.stop(1000);
    if (consumer !== producer) await consumer.close();
    await producer.close();
    await adapter.cleanup();
  }
  const { median, p90 } = summary(samples);
  return [adapter.name, label, samples.length, ms(median), ms(p90)];
}

async function concurrentJobs(dir: string, concurrency: number): Promise<(string | number)[]> {
  const docker = new Docker();
  const dockerOk = await docker.ping().then(
    () => true,
    () => false,
  );
  const token = 'ghs_benchtoken0123456789abcdefghijklmn';
  const server = await GitHttpServer.start({ token });
  const run = randomUUID();
  const hostPath = join(dir, `github-${run}.db`);
  const queuePath = join(dir, `queue-${run}.db`);
  const host = new SqliteCodeHost(hostPath);
  const store = new SqliteJobStore(queuePath);
  try {
    const [main] = await server.createRepository('app', [{ 'app.py': 'import sys\nprint(greeting)\n' }]);
    host.setSetting('branch:main', main);
    host.setSetting('config', { command: 'python3 app.py' });
    const ids: string[] = [];
    for (let issue = 1; issue <= JOBS; issue++) {
      const job = request(issue, server.url('app'));
      ids.push(job.id);
      await store.enqueue(job);
    }
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/queue/fault/worker-process.ts'], {
      env: {
        ...process.env,
        FAULT_QUEUE: 'sqlite',
        FAULT_QUEUE_PATH: queuePath,
        FAULT_HOST_PATH: hostPath,
        FAULT_SANDBOX: dockerOk ? 'docker' : 'local',
        FAULT_TOKEN: token,
        FAULT_LEASE_MS: '30000',
        FAULT_CONCURRENCY: String(concurrency),
        FAULT_MAX_CONTAINERS: String(concurrency),
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    while ((await store.history({ limit: JOBS })).length < JOBS) await sleep(100);
    const wall = performance.now() - started;
    // VmHWM is the process's peak resident set size, kept by the kernel.
    const status = await readFile(`/proc/${child.pid}/status`, 'utf8').catch(() => '');
    const peakKb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    const records = await store.history({ limit: JOBS });
    const { median, p90 } = summary(records.map((record) => record.durationMs));
    // Every job has a fix the scripted model finds: any other outcome is an error.
    const errors = records.filter((record) => record.outcome !== 'fixed').length;
    const left = dockerOk
      ? (
          await docker.listContainers({ all: true, filters: { label: ['dev.selfdebug.managed=true'] } })
        ).filter((info) => ids.includes(info.Labels['dev.selfdebug.job'] ?? '')).length
      : 0;
    return [
      JOBS,
      concurrency,
      dockerOk ? 'docker' : 'local',
      `${(wall / 1000).toFixed(1)} s`,
      ms(median),
      ms(p90),
      errors,
      `${Math.round(peakKb / 1024)} MiB`,
      left,
    ];
  } finally {
    await store.close();
    host.close();
    await server.close();
  }
}

function request(index: number, cloneUrl = 'https://github.com/octo/app.git'): JobRequest {
  const id = randomUUID();
  return jobRequest({
    id,
    dedupeKey: `bench:${id}`,
    repository: { owner: 'octo', name: 'app', cloneUrl, defaultBranch: 'main', private: false },
    trigger: mentionTrigger({ issueNumber: index + 1, commentId: index + 1, text: 'app.py crashes' }),
    createdAt: new Date().toISOString(),
  });
}
