import { createServer } from 'node:net';
import Docker from 'dockerode';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DockerSandboxProvider } from '../../src/adapters/docker/docker-sandbox-provider.js';
import { JOB_LABEL, MANAGED_LABEL } from '../../src/adapters/docker/labels.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import type { SandboxConfigInput } from '../../src/config/sandbox-config.js';
import { ContainerDiedError, EngineUnreachableError, ImagePullError } from '../../src/errors/index.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { sandboxContract } from '../contract/sandbox-contract.js';
import { describeWithDocker, TEST_IMAGE } from '../helpers/docker.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const docker = new Docker();
const provider = (overrides: SandboxConfigInput = {}) =>
  new DockerSandboxProvider(parseSandboxConfig({ image: TEST_IMAGE, ...overrides }), docker);

async function containerExists(id: string): Promise<boolean> {
  try {
    await docker.getContainer(id).inspect();
    return true;
  } catch {
    return false;
  }
}

describeWithDocker('DockerSandbox', () => {
  sandboxContract({ name: 'docker', provider: () => provider(), exists: containerExists });

  describe('isolation and limits', () => {
    const tempDir = useTempDirs();
    const open: Sandbox[] = [];
    afterEach(async () => {
      await Promise.all(open.splice(0).map((sandbox) => sandbox.dispose()));
    });
    async function openSandbox(
      overrides: SandboxConfigInput = {},
      jobId = `iso-${Date.now()}`,
    ): Promise<Sandbox> {
      const sandbox = await provider(overrides).open({ jobId, workspace: await tempDir() });
      open.push(sandbox);
      return sandbox;
    }

    let hostServer: ReturnType<typeof createServer>;
    let hostPort = 0;
    beforeAll(async () => {
      hostServer = createServer((socket) => socket.end('hello from the host\n'));
      await new Promise<void>((resolve) => hostServer.listen(0, '127.0.0.1', resolve));
      hostPort = (hostServer.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => hostServer.close(() => resolve())));

    it('has no network: only loopback, and the host’s loopback server is out of reach', async () => {
      const sandbox = await openSandbox();
      const interfaces = await sandbox.exec('awk \'NR > 2 { sub(":", "", $1); print $1 }\' /proc/net/dev');
      expect(interfaces.stdout.trim().split('\n')).toEqual(['lo']);
      const connect = await sandbox.exec(
        `python3 -c "import socket; socket.create_connection(('127.0.0.1', ${hostPort}), 2); print('connected')"`,
      );
      expect(connect.exitCode).not.toBe(0);
      expect(connect.stderr).toMatch(/ConnectionRefusedError|Network is unreachable/);
      expect(connect.stdout).not.toContain('connected');
    });

    it('runs as a non-root user without capabilities or privilege escalation', async () => {
      const sandbox = await openSandbox();
      const result = await sandbox.exec("id -u; grep -E '^(CapEff|CapPrm|NoNewPrivs)' /proc/self/status");
      const [uid, ...status] = result.stdout.trim().split('\n');
      expect(uid).toBe('1000');
      expect(status).toEqual(['CapPrm:\t0000000000000000', 'CapEff:\t0000000000000000', 'NoNewPrivs:\t1']);
    });

    it('has a read-only root with a writable workspace and /tmp', async () => {
      const sandbox = await openSandbox();
      const root = await sandbox.exec('touch /usr/local/evil');
      expect(root.exitCode).not.toBe(0);
      expect(root.stderr).toMatch(/Read-only file system/);
      const writable = await sandbox.exec('touch /workspace/ok /tmp/ok && echo writable');
      expect(writable.stdout).toBe('writable\n');
    });

    it('applies memory, CPU and pids limits from configuration', async () => {
      const sandbox = await openSandbox({ memoryMb: 96, cpus: 0.5, pidsLimit: 64 });
      const info = await docker.getContainer(sandbox.id).inspect();
      expect(info.HostConfig.Memory).toBe(96 * 1024 * 1024);
      expect(info.HostConfig.NanoCpus).toBe(5e8);
      expect(info.HostConfig.PidsLimit).toBe(64);
      expect(info.HostConfig.NetworkMode).toBe('none');
      expect(info.HostConfig.CapDrop).toEqual(['ALL']);
      expect(info.HostConfig.SecurityOpt).toEqual(['no-new-privileges:true']);
      expect(info.HostConfig.ReadonlyRootfs).toBe(true);
      expect(info.Config.Labels[MANAGED_LABEL]).toBe('true');
    });

    it('stops a fork bomb at the pids limit and stays usable', async () => {
      const sandbox = await openSandbox({ pidsLimit: 64 });
      const bomb = await sandbox.exec('bomb() { bomb | bomb & }; bomb; sleep 20', { timeoutSeconds: 5 });
      expect(bomb.exitCode).toBe(124);
      expect(bomb.output).toMatch(/Resource temporarily unavailable/);
      const after = await sandbox.exec('echo alive; ps -e --no-headers | wc -l');
      expect(after.stdout.split('\n')[0]).toBe('alive');
    });

    it('leaves no process of a command running once it ends, detached or not', async () => {
      const sandbox = await openSandbox();
      const started = await sandbox.exec(
        'setsid sleep 300 & nohup sleep 301 >/dev/null 2>&1 & (sleep 302 &); sleep 303 & disown; echo started',
      );
      expect(started.stdout).toBe('started\n');
      // A command that times out with detached children of its own.
      const timedOut = await sandbox.exec('setsid bash -c "while :; do sleep 1; done" & sleep 304', {
        timeoutSeconds: 2,
      });
      expect(timedOut.exitCode).toBe(124);
      const left = await sandbox.exec('ps -eo args --no-headers');
      expect(left.stdout).not.toMatch(/sleep 30\d|while :/);
      // The container itself is still there for the next command.
      expect((await sandbox.exec('echo alive')).stdout).toBe('alive\n');
    });

    it('ends a memory hog with exit 137 and says it ran out of memory', async () => {
      const sandbox = await openSandbox({ memoryMb: 64 });
      const hog = await sandbox.exec('python3 -c "b = b\'x\' * (512 * 1024 * 1024); print(len(b))"');
      expect(hog).toMatchObject({ exitCode: 137, end: 'oom-killed', reason: 'killed: out of memory' });
      const next = await sandbox.exec('echo recovered');
      expect(next).toMatchObject({ exitCode: 0, stdout: 'recovered\n' });
      const selfKilled = await sandbox.exec('kill -9 $$');
      expect(selfKilled).toMatchObject({ exitCode: 137, end: 'exited', reason: null });
    });

    it('uses one container per job however many commands run', async () => {
      const jobId = `one-container-${Date.now()}`;
      const sandbox = await openSandbox({}, jobId);
      for (let index = 0; index < 5; index++) expect((await sandbox.exec(`echo ${index}`)).exitCode).toBe(0);
      const listed = await docker.listContainers({
        all: true,
        filters: { label: [`${JOB_LABEL}=${jobId}`] },
      });
      expect(listed.map((container) => container.Id)).toEqual([sandbox.id]);
    });

    it('reports a container that died under the job with a typed error', async () => {
      const sandbox = await openSandbox();
      await docker.getContainer(sandbox.id).kill();
      const error = await sandbox.exec('true').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ContainerDiedError);
      expect((error as Error).message).toMatch(/no longer running/);
      expect((error as Error).message).toMatch(/retry the job/);
    });
  });

  describe('engine failures', () => {
    const tempDir = useTempDirs();

    it('names a missing image it cannot pull and what to do', async () => {
      // A registry on the loopback that nothing serves (images.test.ts covers a real registry's answers).
      const image = '127.0.0.1:9/selfdebug-no-such-image:never';
      const error = await provider({ image })
        .open({ jobId: 'missing-image', workspace: await tempDir() })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ImagePullError);
      expect((error as Error).message).toContain(image);
      expect((error as Error).message).toMatch(/docker pull/);
    });

    it('says how to reach an engine that does not answer', async () => {
      const unreachable = new DockerSandboxProvider(
        parseSandboxConfig({ image: TEST_IMAGE }),
        new Docker({ socketPath: '/tmp/selfdebug-no-engine.sock' }),
      );
      const error = await unreachable
        .open({ jobId: 'no-engine', workspace: await tempDir() })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(EngineUnreachableError);
      expect((error as Error).message).toContain('unix:///tmp/selfdebug-no-engine.sock');
      expect((error as Error).message).toMatch(/DOCKER_HOST/);
      await expect(unreachable.ping()).rejects.toBeInstanceOf(EngineUnreachableError);
    });
  });
});
