import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { actionSettings } from '../../src/action/action-settings.js';
import { type ActionInputs, readActionEnvironment } from '../../src/action/inputs.js';
import type { Environment } from '../../src/config/read-environment.js';
import { defaultRepoConfig, type RepoConfig } from '../../src/config/repo-config.js';
import { ConfigError } from '../../src/errors/index.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const tempDir = useTempDirs();

/** The inputs as the runner hands them (action.yml's defaults filled in), plus `more`. */
function inputs(more: Record<string, string> = {}): ActionInputs {
  const env: Environment = { GITHUB_WORKSPACE: '/w', GITHUB_REPOSITORY: 'o/r', INPUT_SANDBOX: 'docker' };
  for (const [name, value] of Object.entries({ 'api-key': 'k', 'github-token': 't', ...more }))
    env[`INPUT_${name.toUpperCase()}`] = value;
  const read = readActionEnvironment(env);
  if (!read.ok) throw new Error(read.problems.join('; '));
  return read.inputs;
}

const settingsOf = (given: ActionInputs, env: Environment, config: RepoConfig = defaultRepoConfig) =>
  actionSettings(given, config, () => {}, env);

describe("the Action's sidecar image", () => {
  it('is the default image whatever the `image` input or sandbox.image name', () => {
    const fromInput = settingsOf(inputs({ image: 'node:22' }), {});
    expect(fromInput.sandbox.image).toBe('node:22');
    expect(fromInput.sandbox.sidecarImage).toBe('selfdebug-executor:latest');
    const fromFile = settingsOf(
      inputs(),
      {},
      { ...defaultRepoConfig, sandbox: { ...defaultRepoConfig.sandbox, image: 'python:3.12' } },
    );
    expect(fromFile.sandbox.image).toBe('python:3.12');
    expect(fromFile.sandbox.sidecarImage).toBe('selfdebug-executor:latest');
  });

  it("is the runner's SELFDEBUG_SANDBOX_IMAGE, or SELFDEBUG_SIDECAR_IMAGE, never the input's", () => {
    const operator = { SELFDEBUG_SANDBOX_IMAGE: 'registry.test/ops/executor:7' };
    const given = inputs({ image: 'golang:1.23' });
    expect(settingsOf(given, operator).sandbox).toMatchObject({
      image: 'golang:1.23',
      sidecarImage: 'registry.test/ops/executor:7',
    });
    expect(
      settingsOf(given, { ...operator, SELFDEBUG_SIDECAR_IMAGE: 'registry.test/ops/sidecar:1' }).sandbox,
    ).toMatchObject({ image: 'golang:1.23', sidecarImage: 'registry.test/ops/sidecar:1' });
  });

  it("takes the runner's other sandbox settings, but never its network", () => {
    const settings = settingsOf(inputs(), {
      SELFDEBUG_SANDBOX_MEMORY_MB: '4096',
      SELFDEBUG_SANDBOX_NETWORK: 'host',
    });
    expect(settings.sandbox.memoryMb).toBe(4096);
    expect(settings.sandbox.network).toBe('none');
  });
});

describe("the runner's SELFDEBUG_EXTRA_CA_CERTS and SELFDEBUG_SETUP_ENV_FILE", () => {
  it('reach the sandbox settings: the certificates to mount, the setup variables and their mirror', async () => {
    const dir = await tempDir();
    const ca = join(dir, 'proxy-ca.pem');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'].concat([
        '-nodes',
        '-keyout',
        join(dir, 'proxy-ca.key'),
        '-out',
        ca,
        '-days',
        '1',
        '-subj',
        '/CN=proxy CA',
      ]),
      { stdio: 'ignore' },
    );
    const envFile = join(dir, 'setup.env');
    writeFileSync(
      envFile,
      'npm_config_registry=https://mirror.corp.test:8443/npm/\nNPM_TOKEN=npm-setup-token-4242\n',
    );

    const settings = settingsOf(inputs(), {
      SELFDEBUG_EXTRA_CA_CERTS: ca,
      SELFDEBUG_SETUP_ENV_FILE: envFile,
    });

    expect(settings.sandbox.extraCaCerts).toBe(ca);
    expect(settings.sandbox.setupEnvFile).toBe(envFile);
    expect(settings.setupExtras.env).toEqual({
      npm_config_registry: 'https://mirror.corp.test:8443/npm/',
      NPM_TOKEN: 'npm-setup-token-4242',
    });
    expect(settings.setupExtras.mirrorHosts).toEqual(['mirror.corp.test:8443']);
    const mounted = settings.setupExtras.caCerts;
    expect(mounted).not.toBeNull();
    expect(readFileSync(mounted!.extra, 'utf8')).toBe(readFileSync(ca, 'utf8').trim().concat('\n'));
  });

  it('are none when unset, and a file that cannot be read stops the run naming its variable', async () => {
    expect(settingsOf(inputs(), {}).setupExtras).toEqual({ env: {}, mirrorHosts: [], caCerts: null });
    const missing = join(await tempDir(), 'absent.env');
    const attempt = () => settingsOf(inputs(), { SELFDEBUG_SETUP_ENV_FILE: missing });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/SELFDEBUG_SETUP_ENV_FILE/);
  });
});
