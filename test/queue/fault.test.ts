import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { BullmqJobStore } from '../../src/adapters/bullmq/bullmq-store.js';
import { JOB_LABEL, MANAGED_LABEL } from '../../src/adapters/docker/labels.js';
import { SqliteJobStore } from '../../src/adapters/sqlite/sqlite-store.js';
import type { JobRequest } from '../../src/queue/job-request.js';
import type { JobStore } from '../../src/queue/job-store.js';
import { formatMarker, parseMarkers } from '../../src/report/markers.js';
import { dockerProblem } from '../helpers/docker.js';
import { GitHttpServer } from '../helpers/git-http-server.js';
import { until } from '../helpers/until.js';
import { SqliteCodeHost } from './fault/sqlite-code-host.js';
import { describeWithRedis, REDIS_URL } from './redis.js';

const TOKEN = 'ghs_faulttoken0123456789abcdefghijklmn';
const JOBS = 20;
const KILLS = 4;
const LEASE_MS = 1500;
const workerEntry = fileURLToPath(new URL('./fault/worker-process.ts', import.meta.url));
const problem = await dockerProblem();
if (problem !== null && process.env.SELFDEBUG_REQUIRE_DOCKER === '1')
  throw new Error(`the fault test needs Docker (SELFDEBUG_REQUIRE_DOCKER=1) but ${problem}`);
// Docker where there is one, so the reaper is part of the test; the local sandbox otherwise.
const sandbox = problem === null ? 'docker' : 'local';

/** A small seeded generator for the choice of victims, so a failing run can be told apart and replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

function faultTest(queue: 'sqlite' | 'redis'): void {
  it(`finishes ${JOBS} jobs exactly once while worker processes are SIGKILLed (${sandbox} sandbox)`, async () => {
    const seed = Date.now();
    const next = random(seed);
    const dir = await mkdtemp(join(tmpdir(), 'selfdebug-fault-'));
    const server = await GitHttpServer.start({ token: TOKEN });
    const queueName = `fault-${randomUUID()}`;
    const env = {
      ...process.env,
      FAULT_QUEUE: queue,
      FAULT_QUEUE_PATH: join(dir, 'queue.db'),
      FAULT_QUEUE_NAME: queueName,
      FAULT_HOST_PATH: join(dir, 'github.db'),
      FAULT_SANDBOX: sandbox,
      FAULT_TOKEN: TOKEN,
      FAULT_LEASE_MS: String(LEASE_MS),
      REDIS_URL,
    };
    const store: JobStore =
      queue === 'redis'
        ? new BullmqJobStore({ url: REDIS_URL, queueName, prefix: 'selfdebug-test', leaseMs: LEASE_MS })
        : new SqliteJobStore(env.FAULT_QUEUE_PATH, { leaseMs: LEASE_MS });
    const host = new SqliteCodeHost(env.FAULT_HOST_PATH);
    const workers = new Set<ChildProcess>();
    const ready = new Set<ChildProcess>();
    const spawned: ChildProcess[] = [];
    const log: string[] = [];
    const startWorker = () => {
      const child = spawn(process.execPath, ['--import', 'tsx', workerEntry], {
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      child.stdout?.on('data', (chunk: Buffer) => {
        const text = chunk.toString();
        if (text.includes('ready')) ready.add(child);
        if (text.includes('held')) child.emit('held');
      });
      child.stderr?.on('data', (chunk: Buffer) => log.push(chunk.toString()));
      child.on('exit', () => workers.delete(child));
      workers.add(child);
      spawned.push(child);
      return child;
    };
    const holdJob = (child: ChildProcess) => {
      const held = new Promise<void>((resolve) => child.once('held', () => resolve()));
      child.stdin?.write('hold\n');
      return held;
    };
    try {
      const [main] = await server.createRepository('app', [{ 'app.py': 'import sys\nprint(greeting)\n' }]);
      host.setSetting('branch:main', main);
      host.setSetting('config', { command: 'python3 app.py' });
      const requests = Array.from({ length: JOBS }, (_, index) => mention(server.url('app'), 100 + index));
      startWorker();
      startWorker();
      for (const request of requests) expect((await store.enqueue(request)).accepted).toBe(true);

      const kills: string[] = [];
      const graceful: Promise<number | null>[] = [];
      for (let round = 0; round < KILLS; round++) {
        // Kills are spread over the run by progress, not by time, so there is always work left to interrupt.
        await until(
          `${round * 3} jobs to finish`,
          async () => (await store.history({ limit: JOBS })).length >= round * 3,
        );
        await until('the workers to be ready', () => [...workers].every((child) => ready.has(child)));
        const victim = [...workers][Math.floor(next() * workers.size)]!;
        if (round === 1) {
          // One round is a deploy instead of a crash: SIGTERM lets the running jobs finish first.
          graceful.push(new Promise((resolve) => victim.on('exit', resolve)));
          // It is leaving: later rounds pick among the others, and it is not stopped twice.
          workers.delete(victim);
          victim.kill('SIGTERM');
          kills.push(`${Date.now()} SIGTERM pid ${victim.pid}`);
        } else {
          // The victim's next model call blocks and says so: the kill lands while a job is leased and mid-run.
          await holdJob(victim);
          victim.kill('SIGKILL');
          kills.push(`${Date.now()} SIGKILL pid ${victim.pid} holding a job`);
        }
        startWorker();
      }
      const context = () => `seed ${seed}; kills: ${kills.join(', ')}\n${log.join('').slice(-4000)}`;
      await until('every job to finish', async () => (await store.history({ limit: 100 })).length === JOBS, {
        context,
      });

      // Graceful stop of what is left: exit code 0, nothing handed back since nothing runs.
      await until('the workers to be ready', () => [...workers].every((child) => ready.has(child)));
      const exits = [...workers].map(
        (child) => new Promise<number | null>((resolve) => child.on('exit', resolve)),
      );
      for (const child of workers) child.kill('SIGTERM');
      exits.push(...graceful);
      expect(await Promise.all(exits), context()).toEqual(exits.map(() => 0));

      const history = await store.history({ limit: 100 });
      expect(new Set(history.map((record) => record.id))).toEqual(
        new Set(requests.map((request) => request.id)),
      );
      expect(
        history.every((record) => record.outcome === 'fixed'),
        context(),
      ).toBe(true);
      expect(kills.filter((kill) => kill.includes('SIGKILL')).length, context()).toBeGreaterThanOrEqual(2);
      // Each SIGKILL took a job mid-run, so at least that many jobs were taken over and run again.
      expect(history.filter((record) => record.runs > 1).length, context()).toBeGreaterThanOrEqual(KILLS - 1);

      // One pull request per job, on its own branch, carrying the fix.
      const branches = requests.map((request) => branchOf(request));
      expect(
        host
          .pulls()
          .map((pull) => pull.head)
          .sort(),
        context(),
      ).toEqual([...branches].sort());
      for (const branch of branches)
        expect(await server.readFile('app', branch, 'app.py')).toBe(
          'import sys\ngreeting = "hello"\nprint(greeting)\n',
        );
      // Every comment found again by its marker: no status or attempt comment twice.
      const markers = host
        .comments()
        .flatMap((comment) => parseMarkers(comment.body).slice(0, 1).map(formatMarker));
      expect(markers.length).toBe(new Set(markers).size);
      expect(markers.filter((marker) => marker.includes('selfdebug:status'))).toHaveLength(JOBS);

      if (sandbox === 'docker') {
        const ids = new Set(requests.map((request) => request.id));
        const left = await new Docker().listContainers({
          all: true,
          filters: { label: [`${MANAGED_LABEL}=true`] },
        });
        expect(left.filter((info) => ids.has(info.Labels[JOB_LABEL] ?? ''))).toEqual([]);
      }
    } finally {
      for (const child of spawned)
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      if (store instanceof BullmqJobStore) await store.obliterate();
      await store.close();
      host.close();
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 600_000);
}

function mention(cloneUrl: string, issueNumber: number): JobRequest {
  const id = randomUUID();
  return {
    id,
    deliveryId: `delivery-${id}`,
    dedupeKey: `issue:octo/app:${issueNumber}`,
    installationId: 1,
    repository: { owner: 'octo', name: 'app', cloneUrl, defaultBranch: 'main', private: false },
    requestedBy: 'octocat',
    headSha: null,
    baseBranch: 'main',
    trigger: {
      kind: 'mention',
      command: 'fix',
      issueNumber,
      isPullRequest: false,
      commentId: issueNumber,
      text: 'app.py crashes',
      scriptBlocks: [],
    },
    options: {},
    createdAt: new Date().toISOString(),
  };
}

/** Where resolveTarget puts an issue's fix. */
function branchOf(request: JobRequest): string {
  const short = request.id
    .replace(/[^a-z0-9]/gi, '')
    .slice(0, 8)
    .toLowerCase();
  return `selfdebug/issue-${request.trigger.kind === 'mention' ? request.trigger.issueNumber : 0}-${short}`;
}

describe('fault: SQLite queue', () => faultTest('sqlite'));
describeWithRedis('fault: BullMQ queue', () => faultTest('redis'));
