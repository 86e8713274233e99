import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DockerSandboxProvider } from '../../src/adapters/docker/docker-sandbox-provider.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import { appScope, entryKey } from '../../src/environment/cache-scope.js';
import { environmentKey } from '../../src/environment/environment-key.js';
import { setupInputDigests } from '../../src/environment/setup-inputs.js';
import type { EnvironmentRequest, SetupCommand } from '../../src/sandbox/environment.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { EnvironmentSetupError } from '../../src/sandbox/setup-error.js';
import { generatedPackages, PackageIndex } from '../fakes/package-index.js';
import { describeWithDocker, removeStoreImages, TEST_IMAGE } from '../helpers/docker.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const docker = new Docker();
const REGISTRY_NAME = 'registry.test';
// Each cold setup makes a venv and commits an image: tens of seconds on a busy 2-core machine.
const SETUP_TIMEOUT_MS = 240_000;
const SCOPE = appScope({ installationId: 1, repositoryId: 1001, branch: 'main', defaultBranch: 'main' });

/**
 * Every way out a command might try, recorded as JSON: a name lookup, a
 * direct connection to a port that listens on the host's loopback, a raw
 * socket, a port on the allowlisted host that is not allowed, and the
 * setup proxy's own port.
 */
function probeScript(hostPort: number, otherPort: number): string {
  return `import json, os, socket, urllib.request
results = {}
def attempt(name, action):
    try:
        action()
        results[name] = 'ok'
    except Exception as error:
        results[name] = type(error).__name__ + ': ' + str(error)[:160]
attempt('dns', lambda: socket.getaddrinfo('example.com', 443))
attempt('direct', lambda: socket.create_connection(('127.0.0.1', ${hostPort}), timeout=3).close())
attempt('raw', lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP))
attempt('other_port', lambda: urllib.request.urlopen('http://${REGISTRY_NAME}:${otherPort}/', timeout=10))
attempt('proxy_port', lambda: socket.create_connection(('127.0.0.1', 3128), timeout=3).close())
print(json.dumps(results))
`;
}

describeWithDocker('environments: setup through the allowlisting proxy, the loop offline', () => {
  const tempDir = useTempDirs();
  let index: PackageIndex;
  let other: PackageIndex;
  let cacheDir: string;
  const open: Sandbox[] = [];

  beforeAll(async () => {
    cacheDir = await tempDir();
    index = await PackageIndex.start({ packages: generatedPackages(3, { payloadBytes: 2000 }) });
    other = await PackageIndex.start({ packages: [] });
  });
  afterAll(async () => {
    await Promise.all(open.map((sandbox) => sandbox.dispose()));
    await index?.close();
    await other?.close();
    await removeStoreImages(cacheDir);
  });

  const provider = () =>
    new DockerSandboxProvider(
      parseSandboxConfig({
        image: TEST_IMAGE,
        egressHosts: [`${REGISTRY_NAME}:${index.port}`],
        egressTrustedHosts: [REGISTRY_NAME],
        environmentCacheEntries: 5,
        environmentCacheDir: cacheDir,
      }),
      docker,
      undefined,
      undefined,
      // The stand-in registry has a name, as a real one would; only the proxy resolves it (to the loopback).
      { egressLookup: (hostname) => (hostname === REGISTRY_NAME ? '127.0.0.1' : null) },
    );

  async function project(requirements: string): Promise<{ dir: string; request: EnvironmentRequest }> {
    const dir = await tempDir();
    await writeFile(join(dir, 'requirements.txt'), requirements);
    await writeFile(join(dir, 'probe.py'), probeScript(index.port, other.port));
    const setup: SetupCommand[] = [
      {
        name: 'install',
        command:
          'python3 -m venv .venv && .venv/bin/pip install --no-cache-dir --disable-pip-version-check ' +
          `--trusted-host ${REGISTRY_NAME} --index-url ${index.url(REGISTRY_NAME)} -r requirements.txt`,
      },
      { name: 'probe', command: 'python3 probe.py > probe-setup.json' },
    ];
    return {
      dir,
      request: {
        setup,
        services: [],
        allowedHosts: [],
        lockfiles: await setupInputDigests(dir, setup),
        cacheScope: SCOPE,
      },
    };
  }

  async function openWith(dir: string, request: EnvironmentRequest, jobId: string): Promise<Sandbox> {
    const sandbox = await provider().open({ jobId, workspace: dir, environment: request });
    open.push(sandbox);
    return sandbox;
  }

  it(
    'installs through the proxy, refuses every other way out, and the loop has no network at all',
    async () => {
      const { dir, request } = await project('sdpkg-001\nsdpkg-002\n');
      const sandbox = await openWith(dir, request, 'env-cold');
      const report = sandbox.preparation!;
      expect(report.reused).toBeNull();
      expect(report.setup.map((run) => run.result.exitCode)).toEqual([0, 0]);
      expect(report.egress.filter((target) => target.allowed).map((target) => target.target)).toEqual([
        `${REGISTRY_NAME}:${index.port}`,
      ]);
      expect(
        report.egress.find((target) => target.target === `${REGISTRY_NAME}:${other.port}`),
      ).toMatchObject({
        allowed: false,
      });
      expect(index.requests.some((request) => request.path.startsWith('/files/'))).toBe(true);

      // What setup could not do.
      const fromSetup = JSON.parse((await sandbox.readFile('probe-setup.json'))!.content.toString());
      expect(fromSetup.dns).not.toBe('ok');
      expect(fromSetup.direct).toMatch(/ConnectionRefused|OSError/);
      expect(fromSetup.raw).toMatch(/PermissionError/);
      expect(fromSetup.other_port).toMatch(/403/);
      expect(fromSetup.proxy_port).toBe('ok');

      // The installed package is there for the loop, and nothing leads out any more.
      const imported = await sandbox.exec('.venv/bin/python -c "import sdpkg_001; print(sdpkg_001.hello())"');
      expect(imported.stdout.trim()).toBe('sdpkg-001');
      const probed = await sandbox.exec('python3 probe.py');
      const fromLoop = JSON.parse(probed.stdout);
      expect(fromLoop.dns).not.toBe('ok');
      expect(fromLoop.direct).toMatch(/ConnectionRefused|OSError/);
      expect(fromLoop.raw).toMatch(/PermissionError/);
      expect(fromLoop.other_port).not.toBe('ok');
      expect(fromLoop.proxy_port).toMatch(/ConnectionRefused/);
      const env = await sandbox.exec('env');
      expect(env.stdout).not.toMatch(/proxy/i);
    },
    SETUP_TIMEOUT_MS,
  );

  it(
    'reuses the prepared environment for the same lockfile and rebuilds for a changed one',
    async () => {
      const first = await project('sdpkg-003\n');
      await openWith(first.dir, first.request, 'env-first');
      const second = await project('sdpkg-003\n');
      const reused = await openWith(second.dir, second.request, 'env-reused');
      expect(reused.preparation?.reused?.key).toBe(reused.preparation?.cacheKey);
      expect(reused.preparation?.setup).toEqual([]);
      // The sources are the new job's own; what setup installed is still there.
      expect((await reused.readFile('requirements.txt'))!.content.toString()).toBe('sdpkg-003\n');
      expect((await reused.exec('.venv/bin/python -c "import sdpkg_003"')).exitCode).toBe(0);

      const changed = await project('sdpkg-003\nsdpkg-001\n');
      const rebuilt = await openWith(changed.dir, changed.request, 'env-changed');
      expect(rebuilt.preparation?.reused).toBeNull();
      expect(rebuilt.preparation?.setup).toHaveLength(2);
    },
    SETUP_TIMEOUT_MS,
  );

  it(
    'discards a broken cache entry and builds it again',
    async () => {
      const { dir, request } = await project('sdpkg-002\n');
      const baseId = (await docker.getImage(TEST_IMAGE).inspect()).Id;
      const key = environmentKey({ baseImageId: baseId, setup: request.setup, lockfiles: request.lockfiles });
      // An image under the key's tag that is not what the cache saved (no key label).
      const entry = entryKey(SCOPE, SCOPE.ref, key);
      await docker.getImage(TEST_IMAGE).tag({ repo: 'selfdebug-env', tag: entry.slice(0, 32) });
      const sandbox = await openWith(dir, request, 'env-broken');
      expect(sandbox.preparation?.reused).toBeNull();
      expect(sandbox.preparation?.setup).toHaveLength(2);
    },
    SETUP_TIMEOUT_MS,
  );

  it('stops at a failing setup step with what it ran and what it was refused', async () => {
    const dir = await tempDir();
    const error = await provider()
      .open({
        jobId: 'env-failing',
        workspace: dir,
        environment: {
          setup: [
            {
              name: 'fetch',
              command: `python3 -c "import urllib.request; urllib.request.urlopen('http://${REGISTRY_NAME}:${other.port}/')"`,
            },
          ],
          services: [],
          allowedHosts: [],
          lockfiles: {},
        },
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EnvironmentSetupError);
    expect((error as Error).message).toContain('"fetch"');
    expect((error as Error).message).toContain(`${REGISTRY_NAME}:${other.port}`);
    expect((error as Error).message).toMatch(/sandbox\.allowed_hosts/);
    const left = await docker.listContainers({
      all: true,
      filters: { label: ['dev.selfdebug.job=env-failing'] },
    });
    expect(left).toEqual([]);
  });

  it('starts services in the job’s namespace, reachable on localhost from the loop', async () => {
    const dir = await tempDir();
    const sandbox = await openWith(
      dir,
      {
        setup: [],
        services: [
          {
            name: 'web',
            image: TEST_IMAGE,
            env: {},
            ports: [8080],
            command: ['python3', '-m', 'http.server', '8080', '--bind', '127.0.0.1', '--directory', '/etc'],
          },
        ],
        allowedHosts: [],
        lockfiles: {},
      },
      'env-services',
    );
    expect(sandbox.preparation?.services).toEqual(['web']);
    const fetched = await sandbox.exec(
      `python3 -c "import urllib.request; print(urllib.request.urlopen('http://localhost:8080/hostname').status)"`,
    );
    expect(fetched.stdout.trim(), fetched.output).toBe('200');
    await sandbox.dispose();
    const left = await docker.listContainers({
      all: true,
      filters: { label: ['dev.selfdebug.job=env-services'] },
    });
    expect(left).toEqual([]);
  });
});
