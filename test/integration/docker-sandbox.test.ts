import type { Duplex } from 'node:stream';
import Docker from 'dockerode';
import { afterEach, describe, expect, it } from 'vitest';
import { drain } from '../../src/adapters/docker/container-calls.js';
import { DockerSandboxProvider } from '../../src/adapters/docker/docker-sandbox-provider.js';
import { JOB_LABEL, MANAGED_LABEL } from '../../src/adapters/docker/labels.js';
import { StreamDemuxer } from '../../src/adapters/docker/stream-demuxer.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import type { SandboxConfigInput } from '../../src/config/sandbox-config.js';
import { ContainerDiedError, EngineUnreachableError, ImagePullError } from '../../src/errors/index.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { sandboxContract } from '../contract/sandbox-contract.js';
import { sandboxLinksContract } from '../contract/sandbox-links-contract.js';
import { describeWithDocker, TEST_SANDBOX } from '../helpers/docker.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const docker = new Docker();
const provider = (overrides: SandboxConfigInput = {}) =>
  new DockerSandboxProvider(parseSandboxConfig({ ...TEST_SANDBOX, ...overrides }), docker);

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
  sandboxLinksContract({ name: 'docker', provider: () => provider(), exists: containerExists });

  // What the container stops (network, root, limits, detached processes, …) is tested as attacks in
  // test/security/sandbox-attacks.test.ts; here, that the configuration reaches the engine.
  describe('limits and lifecycle', () => {
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

    it('applies memory, CPU and pids limits from configuration', async () => {
      const sandbox = await openSandbox({ memoryMb: 96, workspaceMb: 16, cpus: 0.5, pidsLimit: 64 });
      const info = await docker.getContainer(sandbox.id).inspect();
      // The workspace is a tmpfs charged to the container's memory, so its size is added to the limit.
      expect(info.HostConfig.Memory).toBe((96 + 16) * 1024 * 1024);
      expect(info.HostConfig.NanoCpus).toBe(5e8);
      expect(info.HostConfig.PidsLimit).toBe(64);
      expect(info.HostConfig.NetworkMode).toBe('none');
      expect(info.HostConfig.CapDrop).toEqual(['ALL']);
      expect(info.HostConfig.SecurityOpt).toEqual(['no-new-privileges:true']);
      expect(info.HostConfig.ReadonlyRootfs).toBe(true);
      expect(info.Config.Labels[MANAGED_LABEL]).toBe('true');
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

    it("ends what a command left when it ends, never another exec running beside it (a file's helper)", async () => {
      const sandbox = await openSandbox();
      const user = (await sandbox.exec('echo "$(id -u):$(id -g)"')).stdout.trim();
      // An exec as the file helpers run: the same user, its stdin still open, so it runs until the test ends it.
      const beside = await docker.getContainer(sandbox.id).exec({
        Cmd: ['sh', '-c', 'touch .beside; cat; echo still here'],
        User: user,
        WorkingDir: sandbox.workdir,
        AttachStdin: true,
        AttachStdout: true,
        AttachStderr: true,
      });
      const stream = (await beside.start({ hijack: true, stdin: true })) as Duplex;
      const output: string[] = [];
      const drained = drain(stream, new StreamDemuxer((_, payload) => output.push(payload.toString())));
      // The command ends once the exec beside it runs, leaving a process of its own; its sweep comes before its result.
      const command = await sandbox.exec(
        'until [ -e .beside ]; do sleep 0.01; done; setsid sleep 301 & echo left',
      );
      expect(command).toMatchObject({ exitCode: 0, stdout: 'left\n' });
      stream.end('through\n');
      await drained;
      expect(output.join('')).toBe('through\nstill here\n');
      expect((await beside.inspect()).ExitCode).toBe(0);
      expect((await sandbox.exec('ps -eo args --no-headers')).stdout).not.toMatch(/sleep 301/);
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
        parseSandboxConfig({ ...TEST_SANDBOX }),
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
