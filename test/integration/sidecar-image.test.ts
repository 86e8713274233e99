import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DockerSandboxProvider } from '../../src/adapters/docker/docker-sandbox-provider.js';
import { parseFixOptions } from '../../src/cli/fix-options.js';
import { resolveSettings } from '../../src/cli/fix-settings.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import { defaultRepoConfig } from '../../src/config/repo-config.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { generatedPackages, PackageIndex } from '../fakes/package-index.js';
import { describeWithDocker, imageWithoutSocat, TEST_IMAGE } from '../helpers/docker.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const docker = new Docker();
const REGISTRY_NAME = 'registry.test';
const SETUP_TIMEOUT_MS = 240_000;

describeWithDocker('sidecars: any image works for setup', () => {
  const tempDir = useTempDirs();
  const jobImage = `selfdebug-test-nosocat:${randomUUID().slice(0, 8)}`;
  let index: PackageIndex;
  const open: Sandbox[] = [];

  beforeAll(async () => {
    index = await PackageIndex.start({ packages: generatedPackages(1) });
    await imageWithoutSocat(jobImage);
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await Promise.all(open.map((sandbox) => sandbox.dispose()));
    await index?.close();
    await docker
      .getImage(jobImage)
      .remove({ force: true })
      .catch(() => {});
  });

  it(
    '`--image` of an image with no socat: the forwarder runs from the operator image and setup reaches the registry',
    async () => {
      const options = parseFixOptions(['--command', 'true', '--image', jobImage]);
      if (options.kind !== 'run') throw new Error('expected a run');
      const settings = resolveSettings(
        options.options,
        {
          SELFDEBUG_SANDBOX_IMAGE: TEST_IMAGE,
          SELFDEBUG_EGRESS_HOSTS: `${REGISTRY_NAME}:${index.port}`,
          SELFDEBUG_EGRESS_TRUSTED_HOSTS: REGISTRY_NAME,
        },
        { config: defaultRepoConfig, path: null, notes: [] },
      );
      expect(settings.sandbox.image).toBe(jobImage);
      expect(settings.sandbox.sidecarImage).toBe(TEST_IMAGE);

      const dir = await tempDir();
      await writeFile(
        join(dir, 'fetch.py'),
        `import urllib.request\nprint(urllib.request.urlopen('${index.url(REGISTRY_NAME)}').status)\n`,
      );
      const provider = new DockerSandboxProvider(settings.sandbox, docker, undefined, undefined, {
        egressLookup: (hostname) => (hostname === REGISTRY_NAME ? '127.0.0.1' : null),
      });
      const sandbox = await provider.open({
        jobId: `sidecar-${randomUUID().slice(0, 8)}`,
        workspace: dir,
        environment: {
          image: jobImage,
          setup: [
            { name: 'no socat here', command: '! command -v socat' },
            { name: 'fetch', command: 'python3 fetch.py > fetched.txt' },
          ],
          services: [],
          allowedHosts: [],
          lockfiles: {},
        },
      });
      open.push(sandbox);
      const report = sandbox.preparation!;
      expect(report.image).toBe(jobImage);
      expect(report.setup.map((run) => run.result.exitCode)).toEqual([0, 0]);
      expect(report.egress).toEqual([
        expect.objectContaining({ target: `${REGISTRY_NAME}:${index.port}`, allowed: true }),
      ]);
      expect((await sandbox.readFile('fetched.txt'))!.content.toString().trim()).toBe('200');
      expect(index.requests.some((request) => request.path.startsWith('/simple/'))).toBe(true);
    },
    SETUP_TIMEOUT_MS,
  );

  it('doctor: the operator image has the sidecar tools, an image without socat is named with what it lacks', async () => {
    const check = (image: string) =>
      new DockerSandboxProvider(
        parseSandboxConfig({ image, sidecarImage: image }),
        docker,
      ).checkSidecarImage();
    await expect(check(TEST_IMAGE)).resolves.toBe(`${TEST_IMAGE} has sh, sleep, seq, socat`);
    await expect(check(jobImage)).rejects.toThrow(
      `the sidecar image ${jobImage} lacks socat: set SELFDEBUG_SIDECAR_IMAGE`,
    );
  });
});
