import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runnerDependencies } from '../../src/compose/runner-dependencies.js';
import { readJobSettings, readRunnerSettings } from '../../src/compose/settings.js';
import { parseRepoConfig } from '../../src/config/repo-config.js';
import { jobSettings } from '../../src/jobs/job-settings.js';
import { Redactor } from '../../src/report/index.js';
import { mention } from '../queue/requests.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'selfdebug-registry-login-'));
  dirs.push(dir);
  return dir;
};

/** The runner's settings as the App and `selfdebug worker` read them at start-up. */
const runnerSettingsOf = (env: Record<string, string>) => readRunnerSettings(readJobSettings(env).app, env);

describe('the operator’s registry logins', () => {
  it('are read at start-up from Docker’s config.json and SELFDEBUG_REGISTRY_CREDENTIALS, which wins', async () => {
    const config = await tempDir();
    const auth = Buffer.from('octo:from-docker-config').toString('base64');
    await writeFile(
      join(config, 'config.json'),
      JSON.stringify({ auths: { 'https://index.docker.io/v1/': { auth }, 'ghcr.io': { auth } } }),
    );
    const settings = runnerSettingsOf({
      HOME: await tempDir(),
      DOCKER_CONFIG: config,
      SELFDEBUG_REGISTRY_CREDENTIALS: JSON.stringify({
        'ghcr.io': { username: 'bot', password: 'from-env' },
      }),
    });
    expect(settings.registryCredentials.get('docker.io')).toMatchObject({ serveraddress: 'docker.io' });
    expect(settings.registryCredentials.get('ghcr.io')).toEqual({
      username: 'bot',
      password: 'from-env',
      serveraddress: 'ghcr.io',
    });
  });

  it('stop the process at start-up when malformed, naming the variable and the shape it needs', async () => {
    const env = { HOME: await tempDir(), SELFDEBUG_REGISTRY_CREDENTIALS: '{"ghcr.io": {"username": "bot"}}' };
    expect(() => runnerSettingsOf(env)).toThrow(
      'SELFDEBUG_REGISTRY_CREDENTIALS: "ghcr.io" needs {"username": "...", "password": "..."}',
    );
  });

  it('are secrets every job’s redactor hides', async () => {
    const password = 'registry-password-0123456789abcdef';
    const settings = runnerSettingsOf({
      HOME: await tempDir(),
      SELFDEBUG_REGISTRY_CREDENTIALS: JSON.stringify({ '127.0.0.1:5000': { username: 'bot', password } }),
    });
    const dependencies = runnerDependencies(
      async () => {
        throw new Error('no GitHub here');
      },
      settings,
      silent,
    );
    expect(dependencies.operatorSecrets).toEqual([password]);
    const parsed = parseRepoConfig({});
    if (!parsed.ok) throw new Error(parsed.message);
    const { secrets } = jobSettings(mention(), parsed.config, dependencies);
    expect(secrets).toContain(password);
    const redactor = new Redactor(secrets);
    expect(redactor.redact(`pull 127.0.0.1:5000/app: login bot:${password} refused`)).not.toContain(password);
  });
});
