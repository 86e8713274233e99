import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { operatorEgress, setupCommandEnvironment } from '../../src/adapters/docker/operator-setup.js';
import { parseFixOptions } from '../../src/cli/fix-options.js';
import { resolveSettings } from '../../src/cli/fix-settings.js';
import { loadSetupExtras, setupSecrets } from '../../src/compose/setup-extras.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import { defaultRepoConfig } from '../../src/config/repo-config.js';
import { mirrorHostsOf, parseSetupEnvFile, pemCertificates } from '../../src/config/setup-extras.js';
import type { DoctorPorts } from '../../src/doctor/doctor-ports.js';
import { checkSetupSettings } from '../../src/doctor/doctor-setup-check.js';
import { ConfigError } from '../../src/errors/index.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const tempDir = useTempDirs();

/** A self-signed certificate made with openssl, as an operator's CA file would hold. */
async function caFile(): Promise<string> {
  const dir = await tempDir();
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'ca.key')].concat([
      '-out',
      join(dir, 'ca.pem'),
      '-days',
      '1',
      '-subj',
      '/CN=operator CA',
    ]),
    { stdio: 'ignore' },
  );
  return join(dir, 'ca.pem');
}

describe('SELFDEBUG_SETUP_ENV_FILE', () => {
  it('reads KEY=VALUE lines, comments and quotes as docker --env-file does', () => {
    const text =
      '# mirror\n\nnpm_config_registry=https://npm.mirror.test/\nexport PIP_INDEX_URL="https://pypi.mirror.test:8443/simple"\nTOKEN=\'a=b\'\n';
    expect(parseSetupEnvFile(text, 'SELFDEBUG_SETUP_ENV_FILE')).toEqual({
      npm_config_registry: 'https://npm.mirror.test/',
      PIP_INDEX_URL: 'https://pypi.mirror.test:8443/simple',
      TOKEN: 'a=b',
    });
  });

  it('names the line that is not KEY=VALUE', () => {
    expect(() => parseSetupEnvFile('A=1\nnot a variable\n', 'SELFDEBUG_SETUP_ENV_FILE')).toThrow(
      /SELFDEBUG_SETUP_ENV_FILE:\nline 2 is not KEY=VALUE/,
    );
  });

  it('takes the mirrors from URL values, GOPROXY lists included, with their ports', () => {
    expect(
      mirrorHostsOf({
        npm_config_registry: 'https://npm.mirror.test/',
        GOPROXY: 'https://go.mirror.test:8080,direct',
        PIP_INDEX_URL: 'http://user:pass@pypi.mirror.test/simple',
        TOKEN: 'abc',
      }),
    ).toEqual(['npm.mirror.test:443', 'go.mirror.test:8080', 'pypi.mirror.test:80']);
  });
});

describe('SELFDEBUG_EXTRA_CA_CERTS', () => {
  it('refuses a file with no certificate, or a broken one', () => {
    expect(() => pemCertificates('hello', 'SELFDEBUG_EXTRA_CA_CERTS')).toThrow(/holds no PEM certificate/);
    const broken = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----';
    expect(() => pemCertificates(broken, 'SELFDEBUG_EXTRA_CA_CERTS')).toThrow(/certificate 1 does not parse/);
  });

  it('writes the certificates and a bundle that keeps the public roots, readable by the sandbox user', async () => {
    const ca = await caFile();
    const extras = loadSetupExtras({ extraCaCerts: ca }, await tempDir());
    const extra = readFileSync(extras.caCerts!.extra, 'utf8');
    const bundle = readFileSync(extras.caCerts!.bundle, 'utf8');
    expect(extra.trim()).toBe(readFileSync(ca, 'utf8').trim());
    expect(bundle).toContain(rootCertificates[0]!);
    expect(bundle.trimEnd().endsWith(extra.trim())).toBe(true);
  });

  it('stops start-up with the variable named when the file cannot be read', () => {
    expect(() => loadSetupExtras({ extraCaCerts: '/nonexistent/ca.pem' })).toThrow(ConfigError);
    expect(() => loadSetupExtras({ extraCaCerts: '/nonexistent/ca.pem' })).toThrow(
      /SELFDEBUG_EXTRA_CA_CERTS.*ENOENT/s,
    );
  });
});

describe('setup with the operator settings', () => {
  const extras = {
    env: { HTTPS_PROXY: 'http://elsewhere:1', TOKEN: 'tok' },
    mirrorHosts: ['npm.mirror.test:8443'],
    caCerts: null,
  };

  it('gives setup the values, but never lets them replace the proxy', () => {
    const env = setupCommandEnvironment(extras, 'http://127.0.0.1:3128');
    expect(env.TOKEN).toBe('tok');
    expect(env.HTTPS_PROXY).toBe('http://127.0.0.1:3128');
  });

  it('allows the mirror on its port and trusts its name, beside the default hosts', () => {
    const policy = operatorEgress(parseSandboxConfig({}), extras);
    expect(policy.allowedHosts).toEqual(expect.arrayContaining(['npm.mirror.test:8443', 'pypi.org']));
    expect(policy.explicitHosts).toEqual(['npm.mirror.test']);
  });

  it('redacts every value', () => {
    expect(setupSecrets(extras)).toEqual(['http://elsewhere:1', 'tok']);
  });

  it('`selfdebug fix --allow-host --ca-certs --setup-env-file` become the same settings', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'setup.env'), 'npm_config_registry=https://npm.mirror.test:8443/\n');
    const request = parseFixOptions(
      ['--command', 'npm test', '--allow-host', 'git.mirror.test', '--ca-certs', await caFile()].concat([
        '--setup-env-file',
        join(dir, 'setup.env'),
      ]),
    );
    if (request.kind !== 'run') throw new Error('expected a run');
    const settings = resolveSettings(
      request.options,
      {},
      { config: defaultRepoConfig, path: null, notes: [] },
    );
    expect(settings.setupExtras.mirrorHosts).toEqual(['npm.mirror.test:8443', 'git.mirror.test']);
    expect(settings.setupExtras.env).toEqual({ npm_config_registry: 'https://npm.mirror.test:8443/' });
    expect(settings.setupExtras.caCerts?.bundle).toMatch(/bundle\.pem$/);
  });
});

describe('doctor: setup settings', () => {
  const ports = (files: Record<string, string>) =>
    ({
      readFile: async (path: string) =>
        files[path] ?? Promise.reject(Object.assign(new Error(`ENOENT ${path}`), { code: 'ENOENT' })),
    }) as unknown as DoctorPorts;

  it('names the variables and mirrors, never a value', async () => {
    const row = await checkSetupSettings(
      { SELFDEBUG_SETUP_ENV_FILE: '/etc/setup.env' },
      ports({ '/etc/setup.env': 'npm_config_registry=https://npm.mirror.test/\nTOKEN=s3cret-value\n' }),
    );
    expect(row).toMatchObject({
      status: 'ok',
      detail: 'npm_config_registry, TOKEN from /etc/setup.env; mirrors allowed: npm.mirror.test:443',
    });
    expect(JSON.stringify(row)).not.toContain('s3cret-value');
  });

  it('fails on a file it cannot read or parse', async () => {
    const missing = await checkSetupSettings({ SELFDEBUG_EXTRA_CA_CERTS: '/etc/ca.pem' }, ports({}));
    expect(missing).toMatchObject({ status: 'fail', detail: 'cannot read a setup file (ENOENT)' });
    const bad = await checkSetupSettings(
      { SELFDEBUG_EXTRA_CA_CERTS: '/etc/ca.pem' },
      ports({ '/etc/ca.pem': 'nope' }),
    );
    expect(bad).toMatchObject({ status: 'fail', detail: 'a setup file is malformed' });
    expect(bad.fix).toMatch(/holds no PEM certificate/);
  });

  it('is not needed when neither is set', async () => {
    expect(await checkSetupSettings({}, ports({}))).toMatchObject({ status: 'skip' });
  });
});
