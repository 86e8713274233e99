import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/*
 * compose.yaml's syntax is validated by `docker compose config -q` (or
 * docker-compose 1.29) in .ci/run; this checks what the syntax cannot: that
 * the deployment scales, persists the queue and checks the health endpoints
 * the processes serve.
 */
interface Service {
  image?: string;
  build?: { context: string; args?: Record<string, string> };
  command?: string[];
  container_name?: string;
  ports?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  deploy?: unknown;
}

const compose = parse(readFileSync(new URL('../../compose.yaml', import.meta.url), 'utf8'), {
  merge: true,
}) as {
  version?: string;
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const { app, worker, redis } = compose.services;
/** How compose.yaml spells a variable with a default: `${NAME:-default}`. */
const variable = (name: string, fallback?: string) => `\${${name}${fallback ? `:-${fallback}` : ''}}`;

describe('compose.yaml', () => {
  it('scales workers with --scale: no fixed name, no host port, no deploy section (ignored by 1.29)', () => {
    expect(worker).toBeDefined();
    expect(worker!.container_name).toBeUndefined();
    expect(worker!.ports).toBeUndefined();
    expect(worker!.deploy).toBeUndefined();
    expect(compose.version).toBeUndefined();
    expect(worker!.command).toEqual(['node', 'dist/cli/main.js', 'worker']);
  });

  it('runs the App and the workers on the Redis queue, after Redis is healthy', () => {
    for (const service of [app!, worker!]) {
      expect(service.environment).toMatchObject({
        SELFDEBUG_QUEUE: 'redis',
        REDIS_URL: 'redis://redis:6379',
      });
      expect(service.depends_on).toEqual({ redis: { condition: 'service_healthy' } });
    }
  });

  it('keeps the queue in an append-only file on a named volume', () => {
    expect(redis!.command).toEqual(expect.arrayContaining(['--appendonly', 'yes']));
    expect(redis!.volumes).toEqual(['redis-data:/data']);
    expect(Object.keys(compose.volumes)).toContain('redis-data');
    expect(redis!.healthcheck?.test).toEqual(['CMD', 'redis-cli', 'ping']);
  });

  it("lets a host without Docker Hub name its own base images, and defaults to Docker Hub's", () => {
    // scripts/compose-smoke.sh starts this file with stand-ins built by docker/base-images/build-offline.sh.
    expect(redis!.image).toBe(variable('SELFDEBUG_REDIS_IMAGE', 'redis:7-bookworm'));
    for (const service of [app!, worker!]) {
      expect(service.build).toEqual({
        context: '.',
        args: { NODE_IMAGE: variable('SELFDEBUG_NODE_IMAGE', 'node:20-bookworm-slim') },
      });
    }
    const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
    expect(dockerfile).toContain('ARG NODE_IMAGE=node:20-bookworm-slim');
    expect(dockerfile.match(/^FROM .*/gm)).toEqual([
      `FROM ${variable('NODE_IMAGE')} AS build`,
      `FROM ${variable('NODE_IMAGE')} AS runtime`,
    ]);
  });

  it("checks each process's /readyz on the port it serves", () => {
    expect(app!.healthcheck?.test.join(' ')).toContain('http://127.0.0.1:3000/readyz');
    const port = worker!.environment?.SELFDEBUG_METRICS_PORT;
    expect(worker!.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${port}/readyz`);
    expect(worker!.environment?.SELFDEBUG_METRICS_HOST).toBe('0.0.0.0');
  });
});
