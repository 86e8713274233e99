import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import Docker from 'dockerode';
import { afterAll, afterEach, expect } from 'vitest';
import { DockerSandboxProvider } from '../../src/adapters/docker/docker-sandbox-provider.js';
import { containerLabels, JOB_LABEL } from '../../src/adapters/docker/labels.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import type { SandboxConfigInput } from '../../src/config/sandbox-config.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { withSandbox } from '../../src/sandbox/with-sandbox.js';
import { describeWithDocker, TEST_IMAGE, TEST_SANDBOX } from '../helpers/docker.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';
import { attackSuite } from './attack-table.js';
import { DETACH } from './sandbox-probes.js';

/**
 * What a job takes from the engine and what it leaves there: its CPU share, its processes after a cancelled
 * command, its containers after it ends, and what a worker that died left behind. Each test is the attack a
 * job (or a crash) would make, passing only when the engine is left as the promise says.
 */

const docker = new Docker();
const TIMEOUT = 120_000;
const leftovers: string[] = [];

/** The container's cgroup folder for `controller` on the engine's host (cgroup v1 or v2), from its init's pid. */
async function cgroupFolder(
  pid: number,
  controller: 'cpu' | 'cpuacct',
): Promise<{ v2: boolean; folder: string }> {
  const lines = (await readFile(`/proc/${pid}/cgroup`, 'utf8')).trim().split('\n');
  const v1 = lines.find((line) => line.split(':')[1]?.split(',').includes(controller));
  if (v1) {
    const [, controllers, path] = v1.split(':');
    return { v2: false, folder: `/sys/fs/cgroup/${controllers}${path}` };
  }
  return { v2: true, folder: `/sys/fs/cgroup${lines.find((line) => line.startsWith('0::'))!.slice(3)}` };
}

/** The CPUs the kernel grants the container (CFS quota ÷ period). */
async function cgroupCpus(pid: number): Promise<number> {
  const { v2, folder } = await cgroupFolder(pid, 'cpu');
  const read = async (file: string) => (await readFile(`${folder}/${file}`, 'utf8')).trim();
  if (v2) {
    const [quota, period] = (await read('cpu.max')).split(' ');
    return Number(quota) / Number(period);
  }
  return Number(await read('cpu.cfs_quota_us')) / Number(await read('cpu.cfs_period_us'));
}

/** CPU seconds the container's processes have used, as the kernel counts them (whatever the runtime). */
async function cgroupCpuSeconds(pid: number): Promise<number> {
  const { v2, folder } = await cgroupFolder(pid, 'cpuacct');
  if (!v2) return Number(await readFile(`${folder}/cpuacct.usage`, 'utf8')) / 1e9;
  const stat = await readFile(`${folder}/cpu.stat`, 'utf8');
  return Number(/^usage_usec (\d+)/m.exec(stat)![1]) / 1e6;
}

async function exists(id: string): Promise<boolean> {
  return docker
    .getContainer(id)
    .inspect()
    .then(
      () => true,
      () => false,
    );
}

describeWithDocker('container lifecycle attacks (real engine)', () => {
  const attack = attackSuite('lifecycle');
  const tempDir = useTempDirs();
  const open: Sandbox[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((sandbox) => sandbox.dispose()));
  });
  afterAll(async () => {
    await Promise.all(
      leftovers.map((id) =>
        docker
          .getContainer(id)
          .remove({ force: true })
          .catch(() => {}),
      ),
    );
  });
  const provider = (overrides: SandboxConfigInput = {}) =>
    new DockerSandboxProvider(parseSandboxConfig({ ...TEST_SANDBOX, ...overrides }), docker);

  attack(
    'take more CPU than its share with busy processes',
    'NanoCpus on the container, enforced by the cgroup’s CFS quota',
    async () => {
      const sandbox = await provider({ cpus: 0.5 }).open({ jobId: 'cpu-hog', workspace: await tempDir() });
      open.push(sandbox);
      const inspected = await docker.getContainer(sandbox.id).inspect();
      expect(inspected.HostConfig.NanoCpus).toBe(500_000_000);
      expect(await cgroupCpus(inspected.State.Pid)).toBe(0.5);
      // Two busy processes for 3 s, measured by the kernel's own accounting of the cgroup against the wall
      // clock around the command: under the quota the share stays near half a CPU. A busy machine only lowers
      // it, so the bound cannot fail for noise; without a quota two cores would give about 2.
      const usedBefore = await cgroupCpuSeconds(inspected.State.Pid);
      const started = performance.now();
      const hog = await sandbox.exec(
        'for i in 1 2; do timeout 3 bash -c "while :; do :; done" & done; wait; echo done',
      );
      const share =
        ((await cgroupCpuSeconds(inspected.State.Pid)) - usedBefore) / ((performance.now() - started) / 1000);
      expect(hog.stdout).toBe('done\n');
      expect(share).toBeLessThanOrEqual(0.5 * 1.3);
      expect(share).toBeGreaterThan(0);
    },
    TIMEOUT,
  );

  attack(
    'outlive a cancelled command with detached processes',
    'abort kills the command’s process group, then the sweep every process it left',
    async () => {
      const sandbox = await provider().open({ jobId: 'cancel-leftovers', workspace: await tempDir() });
      open.push(sandbox);
      const controller = new AbortController();
      const running = sandbox.exec(`${DETACH}\ntouch .detached\nsleep 600`, { signal: controller.signal });
      // Watched through the file port: a sandbox runs one command at a time.
      await until('the detached processes run', async () => (await sandbox.readFile('.detached')) !== null);
      controller.abort();
      expect(await running).toMatchObject({ exitCode: 130, end: 'cancelled' });
      const left = await sandbox.exec('ps -eo args --no-headers');
      expect(left.stdout).not.toMatch(/sleep 30[1-4]|sleep 600/);
    },
    TIMEOUT,
  );

  attack(
    'keep its container and workspace after the job ends, fails or is cancelled',
    'withSandbox removes the container and its workspace volume however the job ends',
    async () => {
      const ended: { id: string; volumes: string[] }[] = [];
      const job = async (sandbox: Sandbox) => {
        const inspected = await docker.getContainer(sandbox.id).inspect();
        ended.push({ id: sandbox.id, volumes: inspected.Mounts.map((mount) => mount.Name ?? '') });
        await sandbox.exec('echo work > result.txt');
      };
      await withSandbox(provider(), { jobId: 'ends-ok', workspace: await tempDir() }, job);
      await expect(
        withSandbox(provider(), { jobId: 'ends-failed', workspace: await tempDir() }, async (sandbox) => {
          await job(sandbox);
          throw new Error('the job failed');
        }),
      ).rejects.toThrow('the job failed');
      const controller = new AbortController();
      const cancelled = withSandbox(
        provider(),
        { jobId: 'ends-cancelled', workspace: await tempDir(), signal: controller.signal },
        async (sandbox) => {
          await job(sandbox);
          controller.abort();
          await sandbox.exec('sleep 600');
        },
      );
      await cancelled.catch(() => {});
      expect(ended).toHaveLength(3);
      for (const { id, volumes } of ended) {
        expect(await exists(id)).toBe(false);
        for (const name of volumes.filter(Boolean))
          await expect(docker.getVolume(name).inspect()).rejects.toThrow();
      }
    },
    TIMEOUT,
  );

  attack(
    'keep a dead worker’s containers running on the engine',
    'the start-up sweep removes containers whose owner process is gone',
    async () => {
      const container = await docker.createContainer({
        Image: TEST_IMAGE,
        Cmd: ['sleep', 'infinity'],
        // Owned by a process of this host that is not running (pids never reach 4,000,002).
        Labels: containerLabels('sweep-dead-worker', { host: hostname(), pid: 4_000_002, startedAt: 3 }),
        HostConfig: { NetworkMode: 'none' },
      });
      leftovers.push(container.id);
      await container.start();
      // A fresh provider stands for a worker starting up: its first open sweeps.
      const sandbox = await provider().open({ jobId: 'sweep-new-worker', workspace: await tempDir() });
      open.push(sandbox);
      expect(await exists(container.id)).toBe(false);
      const mine = await docker.listContainers({ filters: { label: [`${JOB_LABEL}=sweep-new-worker`] } });
      expect(mine.map((found) => found.Id)).toEqual([sandbox.id]);
    },
    TIMEOUT,
  );
});
