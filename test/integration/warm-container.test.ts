import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterEach, expect, it } from 'vitest';
import { DockerSandboxProvider } from '../../src/adapters/docker/docker-sandbox-provider.js';
import { JOB_LABEL } from '../../src/adapters/docker/labels.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import type { EnvironmentRequest } from '../../src/sandbox/environment.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { describeWithDocker, TEST_SANDBOX } from '../helpers/docker.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';

const docker = new Docker();
const NOTHING: EnvironmentRequest = { setup: [], services: [], allowedHosts: [], lockfiles: {} };

/** The job's containers, running or not. */
async function containersOf(jobId: string): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [`${JOB_LABEL}=${jobId}`] } });
}

/** An environment the test settles by hand, as a job's plan settles once its checkout is cloned. */
function pendingPlan() {
  let settle!: { resolve(request: EnvironmentRequest): void; reject(error: Error): void };
  const environment = new Promise<EnvironmentRequest>((resolve, reject) => {
    settle = { resolve, reject };
  });
  return { environment, ...settle };
}

// The job's container starts while its environment is planned from the checkout (see WarmContainer).
describeWithDocker('DockerSandboxProvider: the container starts while the environment is planned', () => {
  const tempDir = useTempDirs();
  const open: Sandbox[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((sandbox) => sandbox.dispose()));
  });
  const provider = () => new DockerSandboxProvider(parseSandboxConfig(TEST_SANDBOX), docker);

  it("runs before the plan is known and is the job's one container when the plan asks for nothing more", async () => {
    const jobId = `warm-${randomUUID()}`;
    const dir = await tempDir();
    await writeFile(join(dir, 'hello.txt'), 'from the checkout\n');
    const plan = pendingPlan();
    const opening = provider().open({ jobId, workspace: dir, environment: plan.environment });
    await until('the container to run before the plan is known', async () =>
      (await containersOf(jobId)).some((container) => container.State === 'running'),
    );
    plan.resolve(NOTHING);
    const sandbox = await opening;
    open.push(sandbox);
    expect((await containersOf(jobId)).map((container) => container.Id)).toEqual([sandbox.id]);
    const read = await sandbox.exec('cat hello.txt');
    expect(read.stdout).toBe('from the checkout\n');
    // The same locked-down container a job gets otherwise.
    const info = await docker.getContainer(sandbox.id).inspect();
    expect(info.HostConfig.NetworkMode).toBe('none');
    expect(info.HostConfig.CapDrop).toEqual(['ALL']);
    expect(info.HostConfig.ReadonlyRootfs).toBe(true);
  });

  it('is removed when the plan fails (a checkout that could not be cloned)', async () => {
    const jobId = `warm-failed-${randomUUID()}`;
    const plan = pendingPlan();
    const opening = provider().open({ jobId, workspace: await tempDir(), environment: plan.environment });
    opening.catch(() => {});
    await until('the container to be created', async () => (await containersOf(jobId)).length > 0);
    plan.reject(new Error('the clone failed'));
    await expect(opening).rejects.toThrow(/the clone failed/);
    expect(await containersOf(jobId)).toEqual([]);
  });

  it('is removed, and the image the plan chose is used, when the plan asks for another image', async () => {
    const jobId = `warm-other-${randomUUID()}`;
    const plan = pendingPlan();
    const other = 'selfdebug-absent-image:warm';
    const sandboxes = new DockerSandboxProvider(
      parseSandboxConfig({ ...TEST_SANDBOX, allowedImages: [TEST_SANDBOX.image, other] }),
      docker,
    );
    const opening = sandboxes.open({ jobId, workspace: await tempDir(), environment: plan.environment });
    opening.catch(() => {});
    await until('the container to be created', async () => (await containersOf(jobId)).length > 0);
    plan.resolve({ ...NOTHING, image: other });
    // The chosen image is not there and cannot be pulled: the job fails on it, not in the early container.
    await expect(opening).rejects.toThrow(new RegExp(other));
    expect(await containersOf(jobId)).toEqual([]);
  });
});
