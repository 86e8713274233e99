import { hostname } from 'node:os';
import Docker from 'dockerode';
import { afterAll, expect, it } from 'vitest';
import { containerLabels, currentOwner, JOB_LABEL } from '../../src/adapters/docker/labels.js';
import { reapOrphanContainers } from '../../src/adapters/docker/reaper.js';
import { EngineUnreachableError } from '../../src/errors/index.js';
import { describeWithDocker, TEST_IMAGE } from '../helpers/docker.js';

const docker = new Docker();
const created: string[] = [];

async function labelledContainer(jobId: string, owner: { host: string; pid: number; startedAt: number }) {
  const container = await docker.createContainer({
    Image: TEST_IMAGE,
    Cmd: ['sleep', 'infinity'],
    Labels: containerLabels(jobId, owner),
    HostConfig: { NetworkMode: 'none' },
  });
  await container.start();
  created.push(container.id);
  return container.id;
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

describeWithDocker('reapOrphanContainers', () => {
  afterAll(async () => {
    await Promise.all(
      created.map((id) =>
        docker
          .getContainer(id)
          .remove({ force: true })
          .catch(() => {}),
      ),
    );
  });

  it('removes containers of dead processes and old ones, and keeps those of live workers', async () => {
    const deadPid = 4_000_000;
    const orphan = await labelledContainer('reap-orphan', { host: hostname(), pid: deadPid, startedAt: 1 });
    const mine = await labelledContainer('reap-mine', currentOwner());
    const otherHost = await labelledContainer('reap-other-host', { host: 'elsewhere', pid: 1, startedAt: 1 });

    // Other test files' providers sweep too, so the orphan may be gone before this call: assert on the engine.
    const removed = await reapOrphanContainers(docker, { isProcessAlive: (pid) => pid !== deadPid });
    expect(removed).not.toContain(mine);
    expect(removed).not.toContain(otherHost);
    expect(await exists(orphan)).toBe(false);
    expect(await exists(mine)).toBe(true);
    expect(await exists(otherHost)).toBe(true);

    const later = await reapOrphanContainers(docker, {
      now: Date.now() + 7 * 60 * 60 * 1000,
      onlyLabels: [`${JOB_LABEL}=reap-other-host`],
    });
    expect(later).toEqual([otherHost]);
    expect(await exists(otherHost)).toBe(false);
  });

  it('reports an engine that does not answer', async () => {
    const nowhere = new Docker({ socketPath: '/tmp/selfdebug-no-engine.sock' });
    await expect(reapOrphanContainers(nowhere)).rejects.toBeInstanceOf(EngineUnreachableError);
  });
});

// The start-up sweep through a provider's first open is an attack in test/security/container-lifecycle.test.ts.
