import { describe, expect, it } from 'vitest';
import { appEnvironment, loadAppConfig } from '../../src/config/app-config.js';
import { ConfigError } from '../../src/errors/index.js';

function failureOf(action: () => unknown): ConfigError {
  try {
    action();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected the call to throw');
}

describe('App configuration', () => {
  it('has a default for every setting', () => {
    expect(loadAppConfig({})).toEqual({
      handle: 'selfdebug',
      queue: 'sqlite',
      concurrency: 2,
      maxContainers: 4,
      maxMemoryMb: 4096,
      maxWorkspaceMb: 8192,
      repoEgressCeiling: ['*'],
      deriveEnvironment: true,
      allowHostNetwork: false,
      allowRepoModelUrl: false,
      gitLoopbackHttp: false,
      costPeriod: 'month',
      costContact: 'the operator of this selfdebug App',
      commitName: 'selfdebug[bot]',
      commitEmail: 'selfdebug[bot]@users.noreply.github.com',
    });
  });

  it('reads every setting from the environment', () => {
    expect(
      loadAppConfig({
        SELFDEBUG_HANDLE: 'fixbot',
        SELFDEBUG_QUEUE: 'redis',
        REDIS_URL: 'redis://:secret@127.0.0.1:6379/0',
        SELFDEBUG_CONCURRENCY: '8',
        SELFDEBUG_MAX_CONTAINERS: '16',
        SELFDEBUG_MAX_MEMORY_MB: '8192',
        SELFDEBUG_MAX_WORKSPACE_MB: '16384',
        SELFDEBUG_ALLOW_HOST_NETWORK: 'yes',
        SELFDEBUG_REPO_EGRESS_CEILING: '*.example.org, npm.pkg.github.com',
        SELFDEBUG_DERIVE_ENVIRONMENT: 'false',
        SELFDEBUG_ALLOW_REPO_MODEL_URL: 'true',
        SELFDEBUG_GIT_LOOPBACK_HTTP: 'true',
        SELFDEBUG_COST_CEILING_USD: '25.5',
        SELFDEBUG_COST_PERIOD: 'week',
        SELFDEBUG_COST_CONTACT: '@acme/platform',
        SELFDEBUG_OPERATOR_TOKEN: 'op-token-0123456789abcdefghij',
        SELFDEBUG_COMMIT_NAME: 'Fix Bot',
        SELFDEBUG_COMMIT_EMAIL: '123+fixbot[bot]@users.noreply.github.com',
      }),
    ).toEqual({
      handle: 'fixbot',
      queue: 'redis',
      redisUrl: 'redis://:secret@127.0.0.1:6379/0',
      concurrency: 8,
      maxContainers: 16,
      maxMemoryMb: 8192,
      maxWorkspaceMb: 16384,
      allowHostNetwork: true,
      repoEgressCeiling: ['*.example.org', 'npm.pkg.github.com'],
      deriveEnvironment: false,
      allowRepoModelUrl: true,
      gitLoopbackHttp: true,
      costCeilingUsd: 25.5,
      costPeriod: 'week',
      costContact: '@acme/platform',
      operatorToken: 'op-token-0123456789abcdefghij',
      commitName: 'Fix Bot',
      commitEmail: '123+fixbot[bot]@users.noreply.github.com',
    });
  });

  it('refuses a short operator token, a ceiling of 0 and an unknown period, without echoing the token', () => {
    const short = failureOf(() => loadAppConfig({ SELFDEBUG_OPERATOR_TOKEN: 'hunter2-secret' }));
    expect(short.message).toContain('SELFDEBUG_OPERATOR_TOKEN');
    expect(short.message).toContain('at least 24 characters');
    expect(short.message).not.toContain('hunter2-secret');
    expect(failureOf(() => loadAppConfig({ SELFDEBUG_COST_CEILING_USD: '0' })).message).toContain(
      'SELFDEBUG_COST_CEILING_USD',
    );
    expect(failureOf(() => loadAppConfig({ SELFDEBUG_COST_PERIOD: 'year' })).message).toContain(
      'SELFDEBUG_COST_PERIOD',
    );
  });

  it('treats empty variables as unset', () => {
    expect(loadAppConfig({ SELFDEBUG_CONCURRENCY: '', SELFDEBUG_QUEUE: '' })).toMatchObject({
      concurrency: 2,
      queue: 'sqlite',
    });
  });

  it('names the variable behind a value out of range', () => {
    const error = failureOf(() => loadAppConfig({ SELFDEBUG_CONCURRENCY: '64' }));
    expect(error.message).toContain('SELFDEBUG_CONCURRENCY');
    expect(error.message).toContain('<=32');
    expect(failureOf(() => loadAppConfig({ SELFDEBUG_CONCURRENCY: '0' })).message).toContain(
      'SELFDEBUG_CONCURRENCY',
    );
  });

  it('refuses numbers and booleans that are not plain, instead of NaN', () => {
    expect(failureOf(() => loadAppConfig({ SELFDEBUG_MAX_MEMORY_MB: '4G' })).message).toContain(
      'SELFDEBUG_MAX_MEMORY_MB: "4G" is not a number',
    );
    expect(failureOf(() => loadAppConfig({ SELFDEBUG_MAX_CONTAINERS: '2.5' })).message).toContain(
      'SELFDEBUG_MAX_CONTAINERS',
    );
    expect(failureOf(() => loadAppConfig({ SELFDEBUG_ALLOW_HOST_NETWORK: 'maybe' })).message).toContain(
      'SELFDEBUG_ALLOW_HOST_NETWORK: "maybe" is not a boolean',
    );
  });

  it('names the variable behind a bad queue, handle or e-mail', () => {
    expect(failureOf(() => loadAppConfig({ SELFDEBUG_QUEUE: 'kafka' })).message).toContain('SELFDEBUG_QUEUE');
    expect(failureOf(() => loadAppConfig({ SELFDEBUG_HANDLE: '@selfdebug' })).message).toContain(
      'SELFDEBUG_HANDLE',
    );
    expect(failureOf(() => loadAppConfig({ SELFDEBUG_COMMIT_EMAIL: 'nobody' })).message).toContain(
      'SELFDEBUG_COMMIT_EMAIL',
    );
  });

  it('requires REDIS_URL for the redis queue, and only then', () => {
    const error = failureOf(() => loadAppConfig({ SELFDEBUG_QUEUE: 'redis' }));
    expect(error.message).toContain('REDIS_URL is required when SELFDEBUG_QUEUE=redis');
    expect(error.source).toBe('the environment');
    expect(loadAppConfig({ SELFDEBUG_QUEUE: 'sqlite' }).queue).toBe('sqlite');
    expect(
      loadAppConfig({ SELFDEBUG_QUEUE: 'redis', REDIS_URL: 'rediss://cache.internal:6380' }).redisUrl,
    ).toBe('rediss://cache.internal:6380');
  });

  it('names REDIS_URL when it is not a redis URL, without echoing it', () => {
    const error = failureOf(() =>
      loadAppConfig({ SELFDEBUG_QUEUE: 'redis', REDIS_URL: 'http://:hunter2@cache.internal' }),
    );
    expect(error.message).toContain('REDIS_URL');
    expect(error.message).not.toContain('hunter2');
  });

  it('lists a variable for every setting, all SELFDEBUG_ but REDIS_URL', () => {
    const names = Object.values(appEnvironment).flat();
    expect(names.filter((name) => !name.startsWith('SELFDEBUG_'))).toEqual(['REDIS_URL']);
  });
});
