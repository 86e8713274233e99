import { randomUUID } from 'node:crypto';
import Docker from 'dockerode';
import { afterEach, expect, it } from 'vitest';
import { DockerSandboxProvider } from '../../src/adapters/docker/docker-sandbox-provider.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import { ServicesNeedSharedLoopbackError } from '../../src/errors/index.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { describeWithDocker, TEST_IMAGE } from '../helpers/docker.js';
import { useTempDirs } from '../helpers/temp-dir.js';

/**
 * gVisor (`runsc`, registered with `--network=none`) as docs/sandbox.md#gvisor describes it: the loop's
 * container runs under it; setup, which reaches the proxy through the forwarder's loopback, stays on runc;
 * services are refused, since a container under gVisor never sees the loopback it shares with them.
 * .ci/run registers runsc with the engine it starts, so these run there; elsewhere they need it registered.
 */

const docker = new Docker();
const runtimes = Object.keys(
  ((await docker.info().catch(() => ({}))) as { Runtimes?: object }).Runtimes ?? {},
);
const GVISOR = 'runsc';

describeWithDocker('gVisor (runsc) for the job containers', () => {
  const tempDir = useTempDirs();
  const open: Sandbox[] = [];
  const started: Docker.Container[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((sandbox) => sandbox.dispose()));
    await Promise.all(
      started.splice(0).map((container) => container.remove({ force: true }).catch(() => {})),
    );
  });
  const provider = () =>
    new DockerSandboxProvider(parseSandboxConfig({ image: TEST_IMAGE, runtime: GVISOR }), docker);

  it('is registered with the engine (.ci/run registers it)', () => {
    expect(runtimes, 'register runsc in the engine’s daemon.json, as .ci/run does').toContain(GVISOR);
  });

  it('runs the loop under gVisor and setup on runc, where the forwarder’s port is reachable', async () => {
    const nonce = randomUUID();
    const sandbox = await provider().open({
      jobId: 'gvisor-setup',
      workspace: await tempDir(),
      environment: {
        setup: [
          {
            name: 'kernel',
            // The nonce keeps a prepared environment of an earlier run from being reused.
            command:
              `echo ${nonce} >/dev/null; (exec 3<>/dev/tcp/127.0.0.1/3128) && echo reached > /opt/setup-proxy; ` +
              '(dmesg 2>&1 || true) > /opt/setup-dmesg',
          },
        ],
        services: [],
        allowedHosts: [],
        lockfiles: {},
      },
    });
    open.push(sandbox);
    expect(sandbox.preparation?.setup.map((run) => run.result.exitCode)).toEqual([0]);
    expect((await docker.getContainer(sandbox.id).inspect()).HostConfig.Runtime).toBe(GVISOR);
    // gVisor's own kernel greets in dmesg; runc's kernel log is closed to a container without capabilities.
    expect((await sandbox.exec('dmesg')).stdout).toMatch(/gVisor/);
    const fromSetup = await sandbox.exec('cat /opt/setup-proxy /opt/setup-dmesg');
    expect(fromSetup.stdout).toMatch(/^reached\n/);
    expect(fromSetup.stdout).not.toMatch(/gVisor/);
    // An edit is written by a command in the sandbox with its bytes on stdin: gVisor passes the end of stdin on.
    await sandbox.writeFile('edited.py', 'print("under gVisor")\n');
    expect((await sandbox.readFile('edited.py'))?.content.toString()).toBe('print("under gVisor")\n');
  });

  it('refuses services with what to do, and leaves nothing behind', async () => {
    const error = await provider()
      .open({
        jobId: 'gvisor-services',
        workspace: await tempDir(),
        environment: {
          setup: [],
          services: [
            { name: 'db', image: TEST_IMAGE, env: {}, ports: [5432], command: ['sleep', 'infinity'] },
          ],
          allowedHosts: [],
          lockfiles: {},
        },
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServicesNeedSharedLoopbackError);
    expect((error as Error).message).toMatch(/db.*runsc.*SELFDEBUG_SANDBOX_RUNTIME/s);
    const left = await docker.listContainers({
      all: true,
      filters: { label: ['dev.selfdebug.job=gvisor-services'] },
    });
    expect(left).toEqual([]);
  });

  it('shows why: a container under gVisor does not see the loopback of the namespace it joins', async () => {
    const holder = await docker.createContainer({
      Image: TEST_IMAGE,
      Cmd: ['socat', 'TCP-LISTEN:4000,bind=127.0.0.1,fork,reuseaddr', 'SYSTEM:echo listening'],
      User: '65534:65534',
      HostConfig: { NetworkMode: 'none', CapDrop: ['ALL'] },
    });
    started.push(holder);
    await holder.start();
    const dial = async (runtime: string, attempts: number) => {
      const client = await docker.createContainer({
        Image: TEST_IMAGE,
        Cmd: [
          'bash',
          '-c',
          `for i in $(seq ${attempts}); do cat </dev/tcp/127.0.0.1/4000 2>/dev/null && exit 0; sleep 0.1; done; exit 1`,
        ],
        User: '1000:1000',
        HostConfig: { NetworkMode: `container:${holder.id}`, Runtime: runtime, CapDrop: ['ALL'] },
      });
      started.push(client);
      await client.start();
      return (await client.wait()).StatusCode as number;
    };
    // runc first, retrying until the listener is up; then gVisor's container needs one try, not a wait.
    expect(await dial('runc', 100)).toBe(0);
    expect(await dial(GVISOR, 1)).toBe(1);
  });
});
