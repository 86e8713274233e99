import Docker from 'dockerode';
import { expect, it } from 'vitest';
import { DockerSandboxProvider } from '../../src/adapters/docker/docker-sandbox-provider.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import { RuntimeMissingError } from '../../src/errors/index.js';
import { describeWithDocker, TEST_IMAGE } from '../helpers/docker.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const docker = new Docker();

describeWithDocker('the operator’s OCI runtime', () => {
  const tempDir = useTempDirs();
  const provider = (runtime: string) =>
    new DockerSandboxProvider(parseSandboxConfig({ image: TEST_IMAGE, runtime }), docker);

  it('runs the job container with the runtime the operator named', async () => {
    // runc is the one every engine has; runsc or kata are picked the same way where installed.
    const sandbox = await provider('runc').open({ jobId: 'runtime-runc', workspace: await tempDir() });
    try {
      expect((await docker.getContainer(sandbox.id).inspect()).HostConfig.Runtime).toBe('runc');
      expect((await sandbox.exec('echo inside')).stdout).toBe('inside\n');
    } finally {
      await sandbox.dispose();
    }
  });

  it('says how to install a runtime the engine does not have, and leaves nothing behind', async () => {
    const error = await provider('runsc-not-installed')
      .open({ jobId: 'runtime-missing', workspace: await tempDir() })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RuntimeMissingError);
    expect((error as Error).message).toMatch(
      /no runtime "runsc-not-installed".*daemon\.json.*SELFDEBUG_SANDBOX_RUNTIME/,
    );
    // The start-up check (the App, the worker, `selfdebug doctor`) says so before any job.
    await expect(provider('runsc-not-installed').ping()).rejects.toBeInstanceOf(RuntimeMissingError);
    const left = await docker.listContainers({
      all: true,
      filters: { label: ['dev.selfdebug.job=runtime-missing'] },
    });
    expect(left).toEqual([]);
  });
});
