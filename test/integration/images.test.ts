import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerSandboxProvider } from '../../src/adapters/docker/docker-sandbox-provider.js';
import { pullError } from '../../src/adapters/docker/image-store.js';
import { createSandboxProvider } from '../../src/compose/sandbox-provider.js';
import { readJobSettings, readRunnerSettings } from '../../src/compose/settings.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import type { SandboxConfigInput } from '../../src/config/sandbox-config.js';
import { ImageNotAllowedError, ImageNotFoundError, ImagePullError } from '../../src/errors/index.js';
import { describeWithDocker, TEST_IMAGE } from '../helpers/docker.js';
import { freePort, LocalRegistry, miniImage } from '../helpers/registry.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const run = promisify(execFile);
const docker = new Docker();

describeWithDocker('images: pulled from a registry on 127.0.0.1', () => {
  const tempDir = useTempDirs();
  let registry: LocalRegistry;
  let pushed: string;

  beforeAll(async () => {
    registry = await LocalRegistry.start();
    pushed = await registry.push(await miniImage(), `selfdebug/mini:${Date.now()}`);
    // Gone from the engine: the job has to pull it.
    await run('docker', ['rmi', pushed]);
  }, 120_000);
  afterAll(async () => {
    await run('docker', ['rmi', pushed]).catch(() => {});
    await registry?.close();
  });

  const provider = (overrides: SandboxConfigInput = {}) =>
    new DockerSandboxProvider(
      parseSandboxConfig({ image: TEST_IMAGE, environmentCacheEntries: 0, ...overrides }),
      docker,
    );

  it('pulls a missing image, shows the progress, and runs the job in it', async () => {
    const progress: string[] = [];
    const sandbox = await provider().open({
      jobId: 'pull',
      workspace: await tempDir(),
      environment: { image: pushed, setup: [], services: [], allowedHosts: [], lockfiles: {} },
      onProgress: (line) => progress.push(line),
    });
    try {
      expect(sandbox.preparation).toMatchObject({ image: pushed, pulled: true });
      expect(progress[0]).toBe(`pulling ${pushed}`);
      expect(progress.at(-1)).toBe(`pulled ${pushed}`);
      const result = await sandbox.exec('echo "$BASH_VERSION" > version && cat version');
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toMatch(/^\d+\.\d+/);
    } finally {
      await sandbox.dispose();
    }
    // The second job finds it on the engine.
    const again = await provider().open({
      jobId: 'pull-again',
      workspace: await tempDir(),
      environment: { image: pushed, setup: [], services: [], allowedHosts: [], lockfiles: {} },
    });
    expect(again.preparation?.pulled).toBe(false);
    await again.dispose();
  });

  it('names an image the registry does not have', async () => {
    const missing = `${registry.host}/selfdebug/none:never`;
    const error = await provider({ image: missing })
      .open({ jobId: 'missing', workspace: await tempDir() })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ImageNotFoundError);
    expect((error as Error).message).toContain(missing);
    expect((error as Error).message).toMatch(/sandbox\.image|SELFDEBUG_SANDBOX_IMAGE/);
  });

  it('says when the registry cannot be reached', async () => {
    const unreachable = `127.0.0.1:${await freePort()}/selfdebug/none:never`;
    const error = await provider({ image: unreachable })
      .open({ jobId: 'unreachable', workspace: await tempDir() })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ImagePullError);
    expect((error as ImagePullError).failure).toBe('unreachable');
    expect((error as Error).message).toContain(unreachable);
    expect((error as Error).message).toMatch(/could not be reached/);
  });

  it('refuses an image outside the operator’s globs before pulling anything', async () => {
    const outside = `${registry.host}/selfdebug/outside:1`;
    await registry.push(await miniImage(), 'selfdebug/outside:1');
    await run('docker', ['rmi', outside]);
    const error = await provider({ allowedImages: [`${TEST_IMAGE}`, 'node:*'] })
      .open({
        jobId: 'not-allowed',
        workspace: await tempDir(),
        environment: { image: outside, setup: [], services: [], allowedHosts: [], lockfiles: {} },
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ImageNotAllowedError);
    expect((error as Error).message).toContain('node:*');
    await expect(docker.getImage(outside).inspect()).rejects.toMatchObject({ statusCode: 404 });
  });
});

describeWithDocker('images: a private registry, with the operator’s login', () => {
  const tempDir = useTempDirs();
  const login = { username: 'octo', password: 'registry-pass-0123456789abcdef' };
  let registry: LocalRegistry;
  let pushed: string;

  beforeAll(async () => {
    registry = await LocalRegistry.start(login);
    pushed = await registry.push(await miniImage(), `selfdebug/private:${Date.now()}`);
    await run('docker', ['rmi', pushed]);
  }, 120_000);
  afterAll(async () => {
    await run('docker', ['rmi', pushed]).catch(() => {});
    await registry?.close();
  });

  /** A job's sandbox as the App builds it: settings read from `env` at start-up, the provider from compose. */
  const openWith = async (env: Record<string, string>) => {
    const settings = readRunnerSettings(readJobSettings(env).app, env);
    const provider = createSandboxProvider(
      parseSandboxConfig({ image: TEST_IMAGE, environmentCacheEntries: 0 }),
      { host: env, credentials: settings.registryCredentials },
    );
    return provider.open({
      jobId: `private-${Date.now()}`,
      workspace: await tempDir(),
      environment: { image: pushed, setup: [], services: [], allowedHosts: [], lockfiles: {} },
    });
  };
  const pulls = async (env: Record<string, string>) => {
    const sandbox = await openWith(env);
    try {
      expect(sandbox.preparation).toMatchObject({ image: pushed, pulled: true });
      expect((await sandbox.exec('echo pulled')).stdout).toBe('pulled\n');
    } finally {
      await sandbox.dispose();
      await run('docker', ['rmi', pushed]).catch(() => {});
    }
  };

  it('refuses without a login, saying where the App reads one', async () => {
    const error = await openWith({ HOME: await tempDir() }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ImagePullError);
    expect((error as ImagePullError).failure).toBe('unauthorized');
    expect((error as Error).message).toContain('SELFDEBUG_REGISTRY_CREDENTIALS');
  });

  it('pulls with SELFDEBUG_REGISTRY_CREDENTIALS', async () => {
    await pulls({
      HOME: await tempDir(),
      SELFDEBUG_REGISTRY_CREDENTIALS: JSON.stringify({ [registry.host]: login }),
    });
  });

  it('pulls with the login `docker login` keeps in DOCKER_CONFIG', async () => {
    await pulls({ HOME: await tempDir(), DOCKER_CONFIG: registry.cliConfig });
  });
});

describe('pull errors', () => {
  it.each([
    [
      { statusCode: 404, json: { message: 'manifest for x:1 not found: manifest unknown' } },
      ImageNotFoundError,
    ],
    [
      { statusCode: 500, json: { message: 'Head "https://r/v2/x/manifests/1": no basic auth credentials' } },
      ImagePullError,
    ],
    [{ message: 'unauthorized: authentication required' }, ImagePullError],
  ])('maps the engine’s answer %j', (engineError, type) => {
    const mapped = pullError('x:1', engineError, 'unix:///var/run/docker.sock');
    expect(mapped).toBeInstanceOf(type);
    if (mapped instanceof ImagePullError) {
      expect(mapped.failure).toBe('unauthorized');
      expect(mapped.message).toMatch(/docker login|SELFDEBUG_REGISTRY_CREDENTIALS/);
    }
  });
});
