import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import webhookExamples from '@octokit/webhooks-examples/api.github.com/index.json' with { type: 'json' };
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteJobStore } from '../../src/adapters/sqlite/sqlite-store.js';
import { run } from '../../src/cli/main.js';
import { openJobStore, runsJobsInProcess } from '../../src/compose/open-store.js';
import { onShutdown } from '../../src/compose/shutdown.js';
import { loadAppConfig } from '../../src/config/app-config.js';
import { ConfigError } from '../../src/errors/config-errors.js';
import { JobCancelledError } from '../../src/errors/job-errors.js';
import type { JobRequest } from '../../src/queue/job-request.js';
import { MemoryJobStore } from '../../src/queue/memory-store.js';
import { loadQueueConfig } from '../../src/queue/queue-config.js';
import { silentLogger } from '../../src/util/logger.js';
import type { JobRunner } from '../fakes/memory-queue.js';
import { assertGitHubMocksDone, blockNetwork } from '../helpers/github-api.js';
import { deliver, testApp } from '../helpers/probot.js';
import { until } from '../helpers/until.js';
import { failedRun } from './requests.js';

describe('the push handler', () => {
  beforeEach(() => blockNetwork());
  afterEach(() => assertGitHubMocksDone());

  /** GitHub's push example to refs/heads/master (Codertocat/Hello-World), moved to `branch` at `sha`. */
  function push(branch: string, sha: string, sender = 'Codertocat', ref = `refs/heads/${branch}`): object {
    const pushes = (
      webhookExamples as unknown as { name: string; examples: Record<string, unknown>[] }[]
    ).find((entry) => entry.name === 'push')!.examples;
    const payload = structuredClone(pushes.find((example) => String(example.ref).startsWith('refs/heads/'))!);
    return {
      ...payload,
      ref,
      after: sha,
      deleted: false,
      sender: { ...(payload.sender as object), login: sender },
    };
  }

  function helloWorld(branch: string, sha: string): JobRequest {
    const request = failedRun(branch, sha);
    return { ...request, repository: { ...request.repository, owner: 'Codertocat', name: 'Hello-World' } };
  }

  it('cancels running and waiting jobs for older commits of the branch, and only those', async () => {
    const started: string[] = [];
    const aborted = new Map<string, unknown>();
    const runner: JobRunner = (request, signal) => {
      started.push(request.id);
      return new Promise((resolve) =>
        signal.addEventListener('abort', () => resolve(void aborted.set(request.id, signal.reason))),
      );
    };
    const app = await testApp({ runner, concurrency: 3 });
    const stale = helloWorld('feature', 'old');
    const waiting = helloWorld('feature', 'older');
    const current = helloWorld('feature', 'new');
    const other = helloWorld('main', 'old');
    for (const request of [stale, waiting, current, other]) await app.queue.enqueue(request);
    await until('two jobs to start', () => started.length === 2);

    await deliver(app, 'push', push('feature', 'new', 'selfdebug[bot]'), { waitForJobs: false });
    await deliver(app, 'push', push('feature', 'new', 'Codertocat', 'refs/tags/feature'), {
      waitForJobs: false,
    });
    expect(aborted.size).toBe(0);

    await deliver(app, 'push', push('feature', 'new'), { waitForJobs: false });
    await until('the stale job to abort', () => aborted.has(stale.id));
    expect(aborted.get(stale.id)).toBeInstanceOf(JobCancelledError);
    expect((aborted.get(stale.id) as Error).message).toBe(
      'feature moved on to new; this job was for an older commit',
    );
    await until('the current job to start', () => started.includes(current.id));
    expect(started).not.toContain(waiting.id);
    const outcomes = Object.fromEntries(
      (await app.queue.history()).map((record) => [record.id, record.outcome]),
    );
    expect(outcomes).toEqual({ [stale.id]: 'cancelled', [waiting.id]: 'cancelled' });
    expect(await app.queue.stop(0)).toEqual({ finished: 0, handedBack: 2 });
  });
});

describe('selfdebug worker', () => {
  async function worker(argv: string[], env: Record<string, string>) {
    let stdout = '';
    let stderr = '';
    const code = await run(['worker', ...argv], {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      env,
    });
    return { code, stdout, stderr };
  }

  it('explains itself, and refuses a queue it cannot share or a missing App identity', async () => {
    expect(await worker(['--help'], {})).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('SELFDEBUG_QUEUE=redis'),
    });
    expect(await worker(['now'], {})).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('takes no arguments'),
    });
    expect(await worker([], { SELFDEBUG_QUEUE: 'memory' })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('SELFDEBUG_QUEUE is memory'),
    });
    expect(await worker([], { SELFDEBUG_QUEUE: 'sqlite' })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('APP_ID'),
    });
    expect(await worker([], { SELFDEBUG_QUEUE: 'sqlite', SELFDEBUG_LEASE_SECONDS: 'soon' })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('SELFDEBUG_LEASE_SECONDS'),
    });
  });
});

describe('selfdebug worker as a process', () => {
  it('starts as the App on the SQLite queue and stops cleanly on SIGTERM', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'selfdebug-worker-'));
    try {
      const { privateKey } = generateKeyPairSync('rsa', {
        modulusLength: 2048,
        publicKeyEncoding: { type: 'spki', format: 'pem' },
        privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      });
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'worker'], {
        env: {
          PATH: process.env.PATH,
          SELFDEBUG_QUEUE: 'sqlite',
          SELFDEBUG_QUEUE_PATH: join(dir, 'queue.db'),
          APP_ID: '1',
          PRIVATE_KEY: privateKey,
          OPENAI_API_KEY: 'sk-test-0123456789abcdefghij',
          LOG_LEVEL: 'info',
          LOG_FORMAT: 'json',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      await until('the worker to start', () => output.includes('worker started'));
      child.kill('SIGTERM');
      expect(await exited, output).toBe(0);
      expect(output).toContain('"finished":0,"handedBack":0');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    // A process start under load can take most of a minute; the wait above is on the process, not a clock.
  }, 240_000);
});

describe('queue settings', () => {
  it('has defaults, names a bad variable, and picks the adapter SELFDEBUG_QUEUE names', async () => {
    expect(loadQueueConfig({})).toEqual({
      path: 'selfdebug-queue.sqlite',
      leaseSeconds: 30,
      shutdownSeconds: 60,
      historyMax: 10_000,
      historyDays: 30,
      redisPrefix: 'selfdebug',
    });
    expect(() => loadQueueConfig({ SELFDEBUG_LEASE_SECONDS: '1' })).toThrow(ConfigError);
    expect(() => loadQueueConfig({ SELFDEBUG_REDIS_PREFIX: 'a b' })).toThrow(/SELFDEBUG_REDIS_PREFIX/);

    const dir = await mkdtemp(join(tmpdir(), 'selfdebug-open-'));
    try {
      const env = { SELFDEBUG_QUEUE: 'sqlite', SELFDEBUG_QUEUE_PATH: join(dir, 'q.db') };
      const store = openJobStore(loadAppConfig(env), loadQueueConfig(env));
      expect(store).toBeInstanceOf(SqliteJobStore);
      expect(store.leaseMs).toBe(30_000);
      await store.close();
      expect(openJobStore(loadAppConfig({ SELFDEBUG_QUEUE: 'memory' }), loadQueueConfig({}))).toBeInstanceOf(
        MemoryJobStore,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const redis = loadAppConfig({ SELFDEBUG_QUEUE: 'redis', REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(runsJobsInProcess(redis, loadQueueConfig({}))).toBe(false);
    expect(runsJobsInProcess(redis, loadQueueConfig({ SELFDEBUG_IN_PROCESS_WORKER: 'yes' }))).toBe(true);
    expect(runsJobsInProcess(loadAppConfig({ SELFDEBUG_QUEUE: 'sqlite' }), loadQueueConfig({}))).toBe(true);
  });
});

describe('onShutdown', () => {
  it('installs one pair of signal handlers per process, runs every stop, then exits', async () => {
    const exits: number[] = [];
    const fake = Object.assign(new EventEmitter(), { exit: (code: number) => void exits.push(code) });
    const target = fake as unknown as NodeJS.Process;
    const stopped: string[] = [];
    onShutdown(async () => void stopped.push('app'), silentLogger, target);
    const takeBack = onShutdown(async () => void stopped.push('never'), silentLogger, target);
    onShutdown(async () => void stopped.push('worker'), silentLogger, target);
    takeBack();
    expect(fake.listenerCount('SIGTERM')).toBe(1);
    expect(fake.listenerCount('SIGINT')).toBe(1);
    fake.emit('SIGTERM', 'SIGTERM');
    await until('the exit', () => exits.length === 1);
    expect(stopped).toEqual(['app', 'worker']);
    expect(exits).toEqual([0]);
    fake.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([0, 1]);
  });
});
