import { readFile, writeFile } from 'node:fs/promises';
import Docker from 'dockerode';
import { afterEach, expect } from 'vitest';
import { DockerSandboxProvider } from '../../src/adapters/docker/docker-sandbox-provider.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import type { SandboxConfigInput } from '../../src/config/sandbox-config.js';
import { WorkspaceFullError } from '../../src/errors/index.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { describeWithDocker, TEST_SANDBOX } from '../helpers/docker.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { attackSuite } from './attack-table.js';

const docker = new Docker();
const DOCKER_TIMEOUT_MS = 120_000;

/** The file system type of the mount at `path` on this host (the engine's host in these tests), or null. */
async function hostMountType(path: string): Promise<string | null> {
  const table = await readFile('/proc/self/mountinfo', 'utf8');
  for (const line of table.split('\n')) {
    const [mountFields, fsFields] = line.split(' - ');
    if (mountFields?.split(' ')[4] === path) return fsFields?.split(' ')[0] ?? null;
  }
  return null;
}

describeWithDocker('the workspace limit', () => {
  const attack = attackSuite('workspace');
  const tempDir = useTempDirs();
  const open: Sandbox[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((sandbox) => sandbox.dispose()));
  });
  async function openSandbox(overrides: SandboxConfigInput, workspace?: string): Promise<Sandbox> {
    const config = parseSandboxConfig({ ...TEST_SANDBOX, ...overrides });
    const sandbox = await new DockerSandboxProvider(config, docker).open({
      jobId: `quota-${Date.now()}`,
      workspace: workspace ?? (await tempDir()),
    });
    open.push(sandbox);
    return sandbox;
  }

  attack(
    'fill the workspace past its size to fill the engine host’s disk',
    'sized tmpfs workspace: No space left on device',
    async () => {
      const sandbox = await openSandbox({ workspaceMb: 32 });
      const fill = await sandbox.exec('dd if=/dev/zero of=big bs=1M count=64 2>&1; echo "dd exit $?"');
      expect(fill.stdout).toMatch(/No space left on device/);
      expect(fill.stdout).toMatch(/dd exit 1/);
      // find, not stat: the gVisor Debian ships answers statx with EINVAL.
      const size = await sandbox.exec("find big -printf '%s\\n'; df -m --output=size . | tail -n 1");
      const [written, total] = size.stdout.trim().split('\n').map(Number);
      expect(written).toBeLessThanOrEqual(32 * 1024 * 1024);
      expect(total).toBe(32);
      // The bytes went to memory, never to the engine host's disk: the volume's folder there is a tmpfs.
      const info = await docker.getContainer(sandbox.id).inspect();
      const mount = info.Mounts.find((entry) => entry.Destination === '/workspace')!;
      expect(await hostMountType(mount.Source)).toBe('tmpfs');
      // The job goes on: room freed is room to write again.
      const after = await sandbox.exec('rm big && echo fits > small && cat small');
      expect(after.stdout).toBe('fits\n');
    },
    DOCKER_TIMEOUT_MS,
  );

  attack(
    'exhaust the workspace’s inodes with tiny files',
    'tmpfs nr_inodes: No space left on device',
    async () => {
      const sandbox = await openSandbox({ workspaceFiles: 2048 });
      const flood = await sandbox.exec(
        "python3 -c \"\nimport os\nfor i in range(10000):\n    open(f'f{i}', 'w').close()\" 2>&1; ls | wc -l",
      );
      expect(flood.stdout).toMatch(/No space left on device/);
      const count = Number(flood.stdout.trim().split('\n').at(-1));
      expect(count).toBeLessThan(2048);
      const after = await sandbox.exec('find . -name "f*" -delete && echo fine > ok && cat ok');
      expect(after.stdout).toBe('fine\n');
    },
    DOCKER_TIMEOUT_MS,
  );

  attack(
    'hand the sandbox a repository bigger than the workspace',
    'copy-in fails with WorkspaceFullError, no partial job',
    async () => {
      const dir = await tempDir();
      await writeFile(`${dir}/huge.bin`, Buffer.alloc(24 * 1024 * 1024, 1));
      const error = await openSandbox({ workspaceMb: 16 }, dir).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(WorkspaceFullError);
      expect((error as Error).message).toMatch(
        /The repository does not fit in the workspace.*16 MB.*workspace_mb/,
      );
      const left = await docker.listContainers({ all: true, filters: { name: ['quota-'] } });
      expect(
        left.filter((entry) => entry.Names.some((name) => name.includes('selfdebug-quota'))),
      ).toHaveLength(0);
    },
    DOCKER_TIMEOUT_MS,
  );

  attack(
    'install more in setup than the workspace holds',
    'setup’s result is measured before it is saved: WorkspaceFullError',
    async () => {
      const config = parseSandboxConfig({ ...TEST_SANDBOX, workspaceMb: 16, environmentCacheEntries: 2 });
      const error = await new DockerSandboxProvider(config, docker)
        .open({
          jobId: 'quota-setup',
          workspace: await tempDir(),
          environment: {
            setup: [{ name: 'vendor', command: 'dd if=/dev/zero of=vendor.bin bs=1M count=24' }],
            services: [],
            allowedHosts: [],
            lockfiles: {},
          },
        })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(WorkspaceFullError);
      expect((error as Error).message).toMatch(/What setup installed \(2\d MB\) does not fit.*16 MB/);
      const left = await docker.listContainers({
        all: true,
        filters: { label: ['dev.selfdebug.job=quota-setup'] },
      });
      expect(left).toEqual([]);
    },
    DOCKER_TIMEOUT_MS,
  );
});
