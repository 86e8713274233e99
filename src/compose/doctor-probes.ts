import { createSign } from 'node:crypto';
import { constants } from 'node:fs';
import { access, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { loadSandboxConfig } from '../config/load-config.js';
import { loadModelConfig } from '../config/model-config.js';
import type { Environment } from '../config/read-environment.js';
import type { CheckResult, DoctorPorts } from '../doctor/doctor-checks.js';
import { loadModelServerProbe } from './language-model.js';

/**
 * The real ports of `selfdebug doctor` and the App's start-up checks. Every
 * client is loaded on demand, so a check that is not run loads nothing.
 */
export function realDoctorPorts(
  env: Environment,
  options: { github?: boolean; fetch?: typeof fetch } = {},
): DoctorPorts {
  let provider:
    | Promise<import('../adapters/docker/docker-sandbox-provider.js').DockerSandboxProvider>
    | undefined;
  const sandbox = () => {
    provider ??= import('../adapters/docker/docker-sandbox-provider.js').then(
      ({ DockerSandboxProvider }) => new DockerSandboxProvider(loadSandboxConfig(env)),
    );
    return provider;
  };
  return {
    pingSandbox: async () => (await sandbox()).ping(),
    tryContainerSpec: async () => (await sandbox()).tryContainerSpec(),
    checkSidecarImage: async () => (await sandbox()).checkSidecarImage(),
    probeModel: () => probeModel(env),
    pingRedis: async (url) => {
      // Loaded on demand so `doctor` loads ioredis only when the queue is Redis.
      const { pingRedis } = await import('../adapters/bullmq/ping-redis.js');
      return pingRedis(url);
    },
    readFile: (path) => readFile(path, 'utf8'),
    checkWritable,
    canLoad: (name) => {
      try {
        createRequire(import.meta.url).resolve(name);
        return true;
      } catch {
        return false;
      }
    },
    ...(options.github
      ? {
          makeInstallationToken: (appId: string, key: string) =>
            makeInstallationToken(githubApiUrl(env), appId, key, options.fetch ?? fetch),
        }
      : {}),
  };
}

/** `doctor --model`'s probe, summarised in one row; no retries, so a dead server fails fast. */
async function probeModel(env: Environment): Promise<CheckResult> {
  const config = loadModelConfig({ ...env, SELFDEBUG_MODEL_MAX_RETRIES: '0' });
  const server = await loadModelServerProbe(config);
  const checks = await server.probe();
  const where = `${server.model} at ${config.baseUrl ?? 'OpenAI'}`;
  const blocking = checks.filter((check) => check.ok === false && check.blocking);
  if (blocking.length > 0) {
    return {
      name: 'model server',
      status: 'fail',
      detail: `${where}: ${blocking.map((check) => `${check.name} ✘`).join(', ')}`,
      fix: blocking.map((check) => check.fix ?? check.detail).join('\n'),
    };
  }
  const supports = checks
    .filter(
      (check) => check.name === 'tools' || check.name === 'json_schema' || check.name === 'context length',
    )
    .map((check) =>
      check.name === 'context length' ? check.detail.split(':')[0] : `${check.name} ${mark(check.ok)}`,
    );
  return {
    name: 'model server',
    status: 'ok',
    detail: `${where}: ${supports.join(', ')} (details: selfdebug doctor --model)`,
  };
}

function mark(ok: boolean | undefined): string {
  return ok === true ? '✔' : ok === false ? '✘' : '?';
}

/** The SQLite file's folder must exist and be writable, and the file too when it exists. */
async function checkWritable(path: string): Promise<void> {
  const absolute = resolve(path);
  await access(dirname(absolute), constants.W_OK);
  try {
    await access(absolute, constants.F_OK);
  } catch {
    return;
  }
  await access(absolute, constants.W_OK);
}

/** Where Probot talks to GitHub: GHE_HOST (and GHE_PROTOCOL) for GitHub Enterprise, else api.github.com. */
export function githubApiUrl(env: Environment): string {
  const host = env.GHE_HOST?.trim();
  return host ? `${env.GHE_PROTOCOL?.trim() || 'https'}://${host}/api/v3` : 'https://api.github.com';
}

/** Signs an App JWT, finds the App's first installation and makes a token for it (the token is not kept). */
export async function makeInstallationToken(
  apiUrl: string,
  appId: string,
  privateKey: string,
  fetchImpl: typeof fetch,
): Promise<string> {
  const jwt = appJwt(appId, privateKey);
  const call = async (method: string, path: string) => {
    const response = await fetchImpl(`${apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${jwt}`,
        accept: 'application/vnd.github+json',
        'user-agent': 'selfdebug-doctor',
      },
    });
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok) {
      const message = typeof body.message === 'string' ? body.message : response.statusText;
      throw new Error(`GitHub answered ${method} ${path} with ${response.status} ${message}`);
    }
    return body;
  };
  const app = await call('GET', '/app');
  const installations = (await call('GET', '/app/installations')) as unknown;
  const first = Array.isArray(installations) ? (installations[0] as { id?: unknown } | undefined) : undefined;
  if (typeof first?.id !== 'number') {
    throw new Error(`the App "${String(app.slug)}" is not installed anywhere: install it on a repository`);
  }
  const token = await call('POST', `/app/installations/${first.id}/access_tokens`);
  if (typeof token.token !== 'string') throw new Error('GitHub answered without a token');
  return `made an installation token for "${String(app.slug)}" (installation ${first.id})`;
}

function appJwt(appId: string, privateKey: string): string {
  const now = Math.floor(Date.now() / 1000);
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  // Backdated a minute for clock drift, and well under GitHub's ten-minute ceiling.
  const unsigned = `${encode({ alg: 'RS256', typ: 'JWT' })}.${encode({ iat: now - 60, exp: now + 540, iss: appId })}`;
  return `${unsigned}.${createSign('RSA-SHA256').update(unsigned).sign(privateKey, 'base64url')}`;
}
