import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDotEnv } from '../../src/cli/doctor-command.js';
import { run } from '../../src/cli/main.js';
import { parseArguments } from '../../src/cli/parse-arguments.js';
import { githubApiUrl, realDoctorPorts } from '../../src/compose/doctor-probes.js';
import { logStartupChecks } from '../../src/compose/startup-checks.js';
import type { CheckResult, DoctorPorts } from '../../src/doctor/doctor-checks.js';
import {
  EngineUnreachableError,
  ImageNotFoundError,
  ImagePullError,
  RuntimeMissingError,
} from '../../src/errors/sandbox-errors.js';
import { GitHubStandin } from '../fakes/github-standin/standin.js';

const PRIVATE_KEY = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
}).privateKey;

const folder = mkdtempSync(join(tmpdir(), 'selfdebug-doctor-'));

/** Everything a run needs, present. */
const GOOD_ENV = {
  APP_ID: '4321',
  PRIVATE_KEY: PRIVATE_KEY,
  WEBHOOK_SECRET: 'development',
  SELFDEBUG_QUEUE_PATH: join(folder, 'queue.sqlite'),
};

const modelOk: CheckResult = { name: 'model server', status: 'ok', detail: 'rule-model at fake: tools ✔' };

/** Ports that all answer; each test breaks one. */
function healthy(overrides: Partial<DoctorPorts> = {}): DoctorPorts {
  return {
    pingSandbox: async () => {},
    tryContainerSpec: async () => {},
    probeModel: async () => modelOk,
    pingRedis: async () => {},
    readFile: async () => PRIVATE_KEY,
    checkWritable: async () => {},
    canLoad: () => true,
    ...overrides,
  };
}

async function doctor(env: Record<string, string>, ports: DoctorPorts, argv = ['doctor']) {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env,
    doctorPorts: ports,
  });
  return { code, stdout, stderr };
}

/** The table's line for `name`, with the fix lines under it. */
function row(stdout: string, name: string): string {
  const lines = stdout.split('\n');
  const index = lines.findIndex((line) => line.slice(4).startsWith(name));
  const end = lines.findIndex((line, at) => at > index && !line.startsWith('    '));
  return lines.slice(index, end).join('\n');
}

describe('selfdebug doctor', () => {
  it('parses doctor and doctor --github', () => {
    expect(parseArguments(['doctor'])).toEqual({ kind: 'doctor' });
    expect(parseArguments(['doctor', '--github'])).toEqual({ kind: 'doctor', github: true });
    expect(parseArguments(['doctor', '--github', 'x'])).toMatchObject({ kind: 'usage-error' });
  });

  it('prints one ✔ line per check and exits 0 when everything is there', async () => {
    const result = await doctor(GOOD_ENV, healthy());
    expect(result.code).toBe(0);
    for (const name of [
      'docker engine',
      'sandbox image',
      'sandbox limits',
      'model server',
      'github app',
      'webhook secret',
      'queue',
    ]) {
      expect(row(result.stdout, name)).toMatch(new RegExp(`^  ✔ ${name}`));
    }
    expect(row(result.stdout, 'webhook proxy')).toMatch(/^ {2}– webhook proxy .*\n.*fix: .*smee-client/);
    expect(result.stdout).toMatch(/\nready\.\n$/);
  });

  it("tells a command-line user the CLI is ready when only the App's credentials are missing", async () => {
    const result = await doctor({ SELFDEBUG_QUEUE_PATH: GOOD_ENV.SELFDEBUG_QUEUE_PATH }, healthy());
    expect(row(result.stdout, 'github app')).toMatch(/✘ github app/);
    expect(row(result.stdout, 'docker engine')).toMatch(/✔ docker engine/);
    expect(result.stdout).toMatch(
      /\nready for `selfdebug fix` and `eval`; not ready for the App: fix github app.*\n$/,
    );
    expect(result.stdout).not.toContain('not ready: fix');
  });

  it('names the engine and skips what needs it when Docker does not answer', async () => {
    const error = new EngineUnreachableError('unix:///var/run/docker.sock');
    const result = await doctor(GOOD_ENV, healthy({ pingSandbox: () => Promise.reject(error) }));
    expect(result.code).toBe(1);
    expect(row(result.stdout, 'docker engine')).toMatch(
      /✘ docker engine.*\n.*fix: .*Start dockerd.*DOCKER_HOST/,
    );
    expect(row(result.stdout, 'sandbox image')).toMatch(/– sandbox image +not checked/);
    expect(result.stdout).toContain('not ready: fix docker engine');
  });

  it('says how to build or name the image when it is missing', async () => {
    const error = new ImageNotFoundError('selfdebug-executor:latest');
    const result = await doctor(GOOD_ENV, healthy({ pingSandbox: () => Promise.reject(error) }));
    expect(result.code).toBe(1);
    expect(row(result.stdout, 'docker engine')).toMatch(/✔ docker engine/);
    expect(row(result.stdout, 'sandbox image')).toMatch(
      /✘ sandbox image +selfdebug-executor:latest is missing.*\n.*fix: .*SELFDEBUG_SANDBOX_IMAGE.*docker build/,
    );
  });

  it('says to build selfdebug-executor when a pull of it fails', async () => {
    const error = new ImagePullError('selfdebug-executor:latest', 'unreachable', 'no such host');
    const result = await doctor(GOOD_ENV, healthy({ pingSandbox: () => Promise.reject(error) }));
    expect(result.code).toBe(1);
    expect(row(result.stdout, 'sandbox image')).toMatch(
      /fix: Pulling the sandbox image.*\n.*built here, not pulled: `npm run image` builds selfdebug-executor:latest.*docker build -t selfdebug-executor docker\/executor/,
    );
  });

  it("checks the image setup's forwarder runs from, whatever image a job names", async () => {
    const good = await doctor(
      GOOD_ENV,
      healthy({ checkSidecarImage: async () => 'mine:1 has sh, sleep, seq, socat' }),
    );
    expect(row(good.stdout, 'sidecar image')).toMatch(/✔ sidecar image +mine:1 has sh, sleep, seq, socat/);
    const error = new Error(
      'the sidecar image node:22 lacks socat: set SELFDEBUG_SIDECAR_IMAGE to an image with them',
    );
    const bad = await doctor(GOOD_ENV, healthy({ checkSidecarImage: () => Promise.reject(error) }));
    expect(bad.code).toBe(1);
    expect(row(bad.stdout, 'sidecar image')).toMatch(
      /✘ sidecar image.*\n.*fix: .*lacks socat: set SELFDEBUG_SIDECAR_IMAGE/,
    );
  });

  it('flags a missing runtime under the sandbox limits', async () => {
    const error = new RuntimeMissingError('runsc');
    const result = await doctor(GOOD_ENV, healthy({ pingSandbox: () => Promise.reject(error) }));
    expect(result.code).toBe(1);
    expect(row(result.stdout, 'sandbox limits')).toMatch(
      /✘ sandbox limits.*\n.*fix: .*SELFDEBUG_SANDBOX_RUNTIME/,
    );
  });

  it('names the runtime job containers run under, and a requested one the engine lacks', async () => {
    const gvisor = await doctor({ ...GOOD_ENV, SELFDEBUG_SANDBOX_RUNTIME: 'runsc' }, healthy());
    expect(row(gvisor.stdout, 'sandbox limits')).toMatch(/✔ sandbox limits .*under runtime runsc \(gVisor/);
    const plain = await doctor(GOOD_ENV, healthy());
    expect(row(plain.stdout, 'sandbox limits')).toMatch(/under the engine's default runtime/);
    const missing = await doctor(
      { ...GOOD_ENV, SELFDEBUG_SANDBOX_RUNTIME: 'runsc' },
      healthy({ pingSandbox: () => Promise.reject(new RuntimeMissingError('runsc')) }),
    );
    expect(row(missing.stdout, 'sandbox limits')).toMatch(
      /✘ sandbox limits +SELFDEBUG_SANDBOX_RUNTIME=runsc is not registered.*\n.*fix: .*runtimeArgs/,
    );
  });

  it('flags limits the engine refuses', async () => {
    const refused = () => Promise.reject(new Error('Range of CPUs is from 0.01 to 1.00'));
    const result = await doctor(GOOD_ENV, healthy({ tryContainerSpec: refused }));
    expect(result.code).toBe(1);
    expect(row(result.stdout, 'sandbox limits')).toMatch(
      /✘ sandbox limits +the engine refused.*\n.*fix: Range of CPUs.*SELFDEBUG_SANDBOX_CPUS/,
    );
  });

  it('passes the model probe’s fix through', async () => {
    const probeModel = async (): Promise<CheckResult> => ({
      name: 'model server',
      status: 'fail',
      detail: 'gpt at OpenAI: reachable ✘',
      fix: 'No API key for OpenAI. Set SELFDEBUG_MODEL_API_KEY or OPENAI_API_KEY',
    });
    const result = await doctor(GOOD_ENV, healthy({ probeModel }));
    expect(result.code).toBe(1);
    expect(row(result.stdout, 'model server')).toMatch(/✘ model server.*\n.*fix: .*SELFDEBUG_MODEL_API_KEY/);
  });

  it('summarises a real probe of an unreachable server without retrying', async () => {
    const env = { ...GOOD_ENV, SELFDEBUG_MODEL_BASE_URL: 'http://127.0.0.1:9/v1' };
    const result = await doctor(env, { ...healthy(), probeModel: realDoctorPorts(env).probeModel });
    expect(result.code).toBe(1);
    expect(row(result.stdout, 'model server')).toMatch(
      /✘ model server +gpt-4\.1-mini at http:\/\/127\.0\.0\.1:9\/v1/,
    );
  });

  it.each([
    [{ APP_ID: '' }, /APP_ID is not set.*\n.*fix: set APP_ID/],
    [{ APP_ID: 'my-app' }, /APP_ID "my-app" is not a number.*\n.*fix: set APP_ID/],
    [{ PRIVATE_KEY: '' }, /no private key.*\n.*fix: set PRIVATE_KEY_PATH/],
    [
      { PRIVATE_KEY: 'not a key' },
      /PRIVATE_KEY is not a PEM private key.*\n.*fix: download a new private key/,
    ],
  ])('flags the GitHub App credentials %j', async (change, expected) => {
    const result = await doctor({ ...GOOD_ENV, ...change }, healthy());
    expect(result.code).toBe(1);
    expect(row(result.stdout, 'github app')).toMatch(expected);
    expect(result.stdout).not.toContain('BEGIN PRIVATE KEY');
  });

  it('names PRIVATE_KEY_PATH when the file cannot be read', async () => {
    const env = { ...GOOD_ENV, PRIVATE_KEY: '', PRIVATE_KEY_PATH: join(folder, 'missing.pem') };
    const result = await doctor(env, { ...healthy(), readFile: realDoctorPorts(env).readFile });
    expect(result.code).toBe(1);
    expect(row(result.stdout, 'github app')).toMatch(
      /cannot read PRIVATE_KEY_PATH .*ENOENT.*\n.*fix: point PRIVATE_KEY_PATH/,
    );
  });

  it('flags a missing webhook secret', async () => {
    const result = await doctor({ ...GOOD_ENV, WEBHOOK_SECRET: '' }, healthy());
    expect(result.code).toBe(1);
    expect(row(result.stdout, 'webhook secret')).toMatch(/✘ webhook secret.*\n.*fix: set WEBHOOK_SECRET/);
  });

  it('flags a SQLite queue in a folder that does not exist', async () => {
    const env = { ...GOOD_ENV, SELFDEBUG_QUEUE_PATH: join(folder, 'no', 'such', 'queue.sqlite') };
    const result = await doctor(env, { ...healthy(), checkWritable: realDoctorPorts(env).checkWritable });
    expect(result.code).toBe(1);
    expect(row(result.stdout, 'queue')).toMatch(
      /✘ queue +sqlite at .* cannot be written \(ENOENT\)\n.*fix: set SELFDEBUG_QUEUE_PATH/,
    );
  });

  it('flags a Redis server that does not answer, without showing its password', async () => {
    const env = { ...GOOD_ENV, SELFDEBUG_QUEUE: 'redis', REDIS_URL: 'redis://:hunter2@127.0.0.1:9' };
    const result = await doctor(env, { ...healthy(), pingRedis: realDoctorPorts(env).pingRedis });
    expect(result.code).toBe(1);
    expect(row(result.stdout, 'queue')).toMatch(
      /✘ queue +redis at 127\.0\.0\.1:9 does not answer.*\n.*fix: start Redis or fix REDIS_URL/,
    );
    expect(result.stdout).not.toContain('hunter2');
  });

  it('flags REDIS_URL missing with SELFDEBUG_QUEUE=redis', async () => {
    const result = await doctor({ ...GOOD_ENV, SELFDEBUG_QUEUE: 'redis' }, healthy());
    expect(result.code).toBe(1);
    expect(row(result.stdout, 'queue')).toMatch(
      /✘ queue +the queue settings are invalid\n.*fix: Invalid configuration[\s\S]*REDIS_URL is required/,
    );
  });

  it.each([
    ['not a url', true, /is not a URL\n.*fix: set it to a channel URL/],
    [
      'https://smee.io/abc',
      false,
      /smee-client package is not installed\n.*fix: run `npm install smee-client@5`/,
    ],
  ])('flags WEBHOOK_PROXY_URL %s', async (url, installed, expected) => {
    const result = await doctor(
      { ...GOOD_ENV, WEBHOOK_PROXY_URL: url },
      healthy({ canLoad: () => installed }),
    );
    expect(result.code).toBe(1);
    expect(row(result.stdout, 'webhook proxy')).toMatch(expected);
  });

  it('skips the engine for SELFDEBUG_SANDBOX=local, saying it is unsafe', async () => {
    const result = await doctor({ ...GOOD_ENV, SELFDEBUG_SANDBOX: 'local' }, healthy());
    expect(result.code).toBe(0);
    expect(row(result.stdout, 'docker engine')).toMatch(
      /– docker engine +SELFDEBUG_SANDBOX=local.*\n.*fix: unset/,
    );
  });

  describe('with --github, against the GitHub stand-in', () => {
    let standin: GitHubStandin;
    let env: Record<string, string>;
    beforeAll(async () => {
      standin = await GitHubStandin.start();
      const host = new URL(standin.apiUrl).host;
      env = {
        ...GOOD_ENV,
        APP_ID: String(standin.appId),
        PRIVATE_KEY: standin.privateKey,
        GHE_HOST: host,
        GHE_PROTOCOL: 'http',
      };
    });
    afterAll(() => standin.close());

    it('reads GitHub Enterprise’s API URL as Probot does', () => {
      expect(githubApiUrl(env)).toBe(standin.apiUrl);
      expect(githubApiUrl({})).toBe('https://api.github.com');
    });

    it('makes an installation token', async () => {
      const ports = { ...healthy(), ...pick(realDoctorPorts(env, { github: true })) };
      const result = await doctor(env, ports, ['doctor', '--github']);
      expect(result.code).toBe(0);
      expect(row(result.stdout, 'github app')).toMatch(
        /✔ github app +APP_ID \d+; made an installation token for "selfdebug"/,
      );
      expect(standin.issuedTokens).toHaveLength(1);
      expect(result.stdout).not.toContain(standin.issuedTokens[0]);
    });

    it('says what to check when the key belongs to another App', async () => {
      const other = { ...env, PRIVATE_KEY: PRIVATE_KEY };
      const ports = { ...healthy(), ...pick(realDoctorPorts(other, { github: true })) };
      const result = await doctor(other, ports, ['doctor', '--github']);
      expect(result.code).toBe(1);
      expect(row(result.stdout, 'github app')).toMatch(
        /✘ github app +could not make an installation token\n.*fix: GitHub answered GET \/app with 401.*same App/,
      );
    });
  });
});

function pick(ports: DoctorPorts): Partial<DoctorPorts> {
  return ports.makeInstallationToken ? { makeInstallationToken: ports.makeInstallationToken } : {};
}

describe('withDotEnv', () => {
  it('reads ./.env beneath the environment, as Probot does', async () => {
    const path = join(folder, '.env');
    writeFileSync(path, 'APP_ID=111\nWEBHOOK_SECRET=from-file\n');
    const { env, source } = await withDotEnv({ APP_ID: '222', WEBHOOK_SECRET: '' }, path);
    expect(env).toMatchObject({ APP_ID: '222', WEBHOOK_SECRET: 'from-file' });
    expect(source).toBe(`the environment and ${path}`);
    expect(await withDotEnv({ A: '1' }, join(folder, 'none.env'))).toEqual({
      env: { A: '1' },
      source: undefined,
    });
  });
});

describe('the App’s start-up checks', () => {
  it('logs each failure as one line with its fix, and never throws', async () => {
    const warnings: string[] = [];
    const logger = { info: () => {}, warn: (_fields: object, message: string) => warnings.push(message) };
    const ports = healthy({
      pingSandbox: () => Promise.reject(new ImageNotFoundError('selfdebug-executor:latest')),
    });
    await logStartupChecks({ ...GOOD_ENV, WEBHOOK_SECRET: '' }, logger, { queue: 'sqlite', ports });
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatch(/^start-up check failed: sandbox image: .* Fix: .*SELFDEBUG_SANDBOX_IMAGE/);
    // No key for OpenAI: the settings are checked, the server is not asked.
    expect(warnings[1]).toMatch(/^start-up check failed: model server: .* Fix: .*SELFDEBUG_MODEL_API_KEY/);
    expect(warnings[2]).toMatch(/^start-up check failed: webhook secret: .* Fix: set WEBHOOK_SECRET/);
    for (const warning of warnings) expect(warning).not.toContain('\n');
  });

  it('asks Redis, not the Docker engine, with the Redis queue: workers run the jobs', async () => {
    const asked: string[] = [];
    const ports = healthy({
      pingSandbox: async () => void asked.push('docker'),
      tryContainerSpec: async () => void asked.push('container'),
      pingRedis: async () => void asked.push('redis'),
    });
    const infos: string[] = [];
    const logger = { info: (_fields: object, message: string) => infos.push(message), warn: () => {} };
    const env = {
      ...GOOD_ENV,
      SELFDEBUG_MODEL_API_KEY: 'sk-test',
      SELFDEBUG_QUEUE: 'redis',
      REDIS_URL: 'redis://127.0.0.1:6379',
    };
    await logStartupChecks(env, logger, { queue: 'redis', ports });
    expect(asked).toEqual(['redis']);
    expect(infos).toEqual(['start-up checks passed (`selfdebug doctor` checks more)']);
  });

  it('asks nothing outside the process with the memory queue', async () => {
    const asked: string[] = [];
    const ports = healthy({
      pingSandbox: async () => void asked.push('docker'),
      tryContainerSpec: async () => void asked.push('container'),
      probeModel: async () => {
        asked.push('model');
        return modelOk;
      },
    });
    const infos: string[] = [];
    const logger = { info: (_fields: object, message: string) => infos.push(message), warn: () => {} };
    const env = { ...GOOD_ENV, SELFDEBUG_MODEL_API_KEY: 'sk-test' };
    await logStartupChecks(env, logger, { queue: 'memory', ports });
    expect(asked).toEqual([]);
    expect(infos).toEqual(['start-up checks passed (`selfdebug doctor` checks more)']);
  });
});
