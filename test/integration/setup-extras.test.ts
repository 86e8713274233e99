import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DockerSandboxProvider } from '../../src/adapters/docker/docker-sandbox-provider.js';
import { JOB_LABEL } from '../../src/adapters/docker/labels.js';
import { loadSetupExtras } from '../../src/compose/setup-extras.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import type { SetupExtras } from '../../src/config/setup-extras.js';
import { setupInputDigests } from '../../src/environment/setup-inputs.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { EnvironmentSetupError } from '../../src/sandbox/setup-error.js';
import { TlsRegistry } from '../fakes/tls-registry.js';
import { describeWithDocker, TEST_IMAGE } from '../helpers/docker.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const docker = new Docker();
const REGISTRY_NAME = 'mirror.test';
// Two cold setups with `npm ci`, each committed as an image, on a busy 2-core machine.
const SETUP_TIMEOUT_MS = 240_000;
const TOKEN = `setup-token-${randomUUID()}`;

describeWithDocker('operator settings for setup: a private CA and a registry mirror', () => {
  const tempDir = useTempDirs();
  let registry: TlsRegistry;
  const open: Sandbox[] = [];

  beforeAll(async () => {
    registry = await TlsRegistry.start(REGISTRY_NAME);
  });
  afterAll(async () => {
    await Promise.all(open.map((sandbox) => sandbox.dispose()));
    await registry?.close();
  });

  /** A project depending on the registry's one package, locked to its tarball, and the operator's files. */
  async function project(withCa: boolean): Promise<{ dir: string; extras: SetupExtras }> {
    const dir = await tempDir();
    const { name, version, integrity } = registry.tarball;
    await writeFile(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { [name]: version } }),
    );
    const lock = {
      name: 'app',
      version: '1.0.0',
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name: 'app', version: '1.0.0', dependencies: { [name]: version } },
        [`node_modules/${name}`]: { version, resolved: registry.tarballUrl, integrity },
      },
    };
    await writeFile(join(dir, 'package-lock.json'), JSON.stringify(lock));
    const operator = await tempDir();
    const envFile = join(operator, 'setup.env');
    await writeFile(
      envFile,
      `# the operator's mirror\nnpm_config_registry=${registry.url}\nnpm_config_fetch_retries=0\nMIRROR_TOKEN="${TOKEN}"\n`,
    );
    const extras = loadSetupExtras(
      { setupEnvFile: envFile, ...(withCa ? { extraCaCerts: registry.caFile } : {}) },
      operator,
    );
    return { dir, extras };
  }

  async function setUp(withCa: boolean, jobId = `ca-${randomUUID().slice(0, 8)}`) {
    const { dir, extras } = await project(withCa);
    // No SELFDEBUG_EGRESS_HOSTS: the mirror is allowed (and trusted to be on the loopback) because the setup file names it.
    const provider = new DockerSandboxProvider(
      parseSandboxConfig({ image: TEST_IMAGE }),
      docker,
      undefined,
      undefined,
      {
        egressLookup: (hostname) => (hostname === REGISTRY_NAME ? '127.0.0.1' : null),
        setupExtras: extras,
      },
    );
    const setup = [{ name: 'install', command: 'npm ci --no-audit --no-fund' }];
    return provider.open({
      jobId,
      workspace: dir,
      // The lockfile names this run's registry port: no prepared environment of an earlier run matches.
      environment: { setup, services: [], allowedHosts: [], lockfiles: await setupInputDigests(dir, setup) },
    });
  }

  it(
    '`npm ci` against a mirror signed by a private CA fails without SELFDEBUG_EXTRA_CA_CERTS',
    async () => {
      const error = await setUp(false).then(
        (sandbox) => {
          open.push(sandbox);
          throw new Error('setup passed without the CA');
        },
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(EnvironmentSetupError);
      const { result } = error as EnvironmentSetupError;
      expect(result.exitCode).not.toBe(0);
      expect(result.output).toMatch(
        /SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT|self[- ]signed certificate/i,
      );
      expect(result.output).not.toContain(TOKEN);
    },
    SETUP_TIMEOUT_MS,
  );

  it(
    "works with it, and the loop trusts the CA but never sees the setup file's values",
    async () => {
      const jobId = `ca-${randomUUID().slice(0, 8)}`;
      const sandbox = await setUp(true, jobId);
      open.push(sandbox);
      const report = sandbox.preparation!;
      expect(report.setup.map((run) => run.result.exitCode)).toEqual([0]);
      expect(report.egress).toEqual([
        expect.objectContaining({ target: `${REGISTRY_NAME}:${registry.port}`, allowed: true }),
      ]);
      expect(registry.requests).toContain(
        `/${registry.tarball.name}/-/${registry.tarball.name}-${registry.tarball.version}.tgz`,
      );
      const loaded = await sandbox.exec(`node -e "console.log(require('${registry.tarball.name}')())"`);
      expect(loaded.stdout.trim()).toBe(`${registry.tarball.name} ${registry.tarball.version}`);

      const env = await sandbox.exec('env');
      expect(env.stdout).toContain('NODE_EXTRA_CA_CERTS=/etc/selfdebug/ca/extra.pem');
      expect(env.stdout).not.toContain(TOKEN);
      expect(env.stdout).not.toContain('npm_config_registry');
      // The bundle tools that replace their store get: the public roots and the operator's CA.
      const bundle = await sandbox.exec(
        'grep -c "BEGIN CERTIFICATE" "$SSL_CERT_FILE"; cat /etc/selfdebug/ca/extra.pem',
      );
      expect(Number(bundle.stdout.split('\n')[0])).toBeGreaterThan(100);
      expect(bundle.stdout).toContain('BEGIN CERTIFICATE');
      // Nor does the prepared image keep them: setup's values went to its commands, not its container.
      const [loop] = await docker.listContainers({ filters: { label: [`${JOB_LABEL}=${jobId}`] } });
      const image = await docker.getImage(loop!.ImageID).inspect();
      expect(image.RepoTags?.join(' ') ?? '').not.toContain(TEST_IMAGE);
      expect(JSON.stringify(image.Config.Env)).not.toContain(TOKEN);
    },
    SETUP_TIMEOUT_MS,
  );
});
