import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BullmqJobStore } from '../../src/adapters/bullmq/bullmq-store.js';
import { PrometheusMetrics } from '../../src/adapters/prometheus/index.js';
import { metricsAddress } from '../../src/cli/worker-command.js';
import { opsHandler } from '../../src/compose/ops-endpoints.js';
import { type OpsServer, startOpsServer } from '../../src/compose/ops-server.js';
import { queueReadiness } from '../../src/compose/queue-readiness.js';
import { ConfigError } from '../../src/errors/config-errors.js';
import { MemoryJobStore } from '../../src/queue/memory-store.js';
import { scrape } from '../e2e/support/metrics.js';
import { describeWithRedis, REDIS_URL } from '../queue/redis.js';

const servers: OpsServer[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const close of closers.splice(0)) await close();
});

async function serve(ready: () => Promise<void>, metrics = new PrometheusMetrics({ processMetrics: false })) {
  const server = await startOpsServer(
    opsHandler({ metrics: () => metrics.exposition(), ready }),
    '127.0.0.1',
    0,
  );
  servers.push(server);
  return server.url;
}

/** A port nothing listens on: taken from the system, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the operations endpoints', () => {
  it('answer /healthz, /readyz and /metrics, and pass everything else on', async () => {
    const store = new MemoryJobStore();
    closers.push(() => store.close());
    const metrics = new PrometheusMetrics({ processMetrics: false });
    metrics.webhookReceived('push');
    metrics.ciVerdict('passed');
    metrics.ciVerdict('passed');
    metrics.ciVerdict('failed');
    const url = await serve(queueReadiness(store, { queue: 'memory', redisUrl: undefined }), metrics);

    expect(await scrape(`${url}/healthz`)).toMatchObject({ status: 200, text: 'ok\n' });
    expect(await scrape(`${url}/readyz`)).toMatchObject({ status: 200, text: 'ready\n' });
    const scraped = await scrape(`${url}/metrics?name=ignored`);
    expect(scraped.status).toBe(200);
    expect(scraped.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(scraped.text).toContain('selfdebug_webhook_deliveries_total{event="push"} 1');
    expect(scraped.text).toContain('selfdebug_fix_ci_verdicts_total{verdict="passed"} 2');
    expect(scraped.text).toContain('selfdebug_fix_ci_verdicts_total{verdict="failed"} 1');
    // Passed on: on the App's server Probot's 404 (or its webhooks) answer these.
    expect((await scrape(`${url}/jobs`)).status).toBe(404);
    expect((await fetch(`${url}/metrics`, { method: 'POST' })).status).toBe(404);
  });

  it('/readyz fails with 503 and says what to check when readiness rejects', async () => {
    const url = await serve(async () => {
      throw new Error('the redis job queue did not answer; check REDIS_URL');
    });
    expect(await scrape(`${url}/readyz`)).toEqual({
      status: 503,
      contentType: 'text/plain; charset=utf-8',
      text: 'not ready: the redis job queue did not answer; check REDIS_URL\n',
    });
    expect((await scrape(`${url}/healthz`)).status).toBe(200);
  });

  it('a worker whose metrics port is taken stops with a message naming the setting', async () => {
    const url = await serve(async () => {});
    const port = Number(new URL(url).port);
    const taken = startOpsServer(
      opsHandler({ metrics: async () => ({ contentType: '', text: '' }), ready: async () => {} }),
      '127.0.0.1',
      port,
    );
    await expect(taken).rejects.toBeInstanceOf(ConfigError);
    await expect(taken).rejects.toThrow(
      /SELFDEBUG_METRICS_PORT:\ncannot serve metrics on 127\.0\.0\.1:\d+ \(EADDRINUSE\): pick a free port/,
    );
  });
});

describeWithRedis('readiness of the Redis queue', () => {
  it('is ready while Redis answers', async () => {
    const store = new BullmqJobStore({
      url: REDIS_URL,
      prefix: 'selfdebug-test',
      queueName: `ops-${randomUUID()}`,
    });
    closers.push(() => store.close());
    const url = await serve(queueReadiness(store, { queue: 'redis', redisUrl: REDIS_URL }));
    expect(await scrape(`${url}/readyz`)).toMatchObject({ status: 200, text: 'ready\n' });
  });

  it('is not ready, with a clear and redacted body, when Redis does not answer', async () => {
    const password = 'hunter2-but-much-longer-than-that';
    const redisUrl = `redis://:${password}@127.0.0.1:${await closedPort()}`;
    const store = new BullmqJobStore({
      url: redisUrl,
      prefix: 'selfdebug-test',
      queueName: `ops-${randomUUID()}`,
    });
    closers.push(() => store.close().catch(() => {}));
    const url = await serve(queueReadiness(store, { queue: 'redis', redisUrl }, 500));
    const answer = await scrape(`${url}/readyz`);
    expect(answer.status).toBe(503);
    expect(answer.text).toMatch(
      /^not ready: the redis job queue did not answer \(.+\); check REDIS_URL and that Redis is up and reachable from this host\n$/,
    );
    expect(answer.text).not.toContain(password);
  });
});

describe('selfdebug worker --metrics-port', () => {
  it('serves nothing unless a port is set, on loopback unless told otherwise', () => {
    expect(metricsAddress([], {})).toBeNull();
    expect(metricsAddress(['--metrics-port', '9464'], {})).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(metricsAddress([], { SELFDEBUG_METRICS_PORT: '0', SELFDEBUG_METRICS_HOST: '0.0.0.0' })).toEqual({
      host: '0.0.0.0',
      port: 0,
    });
    // The option wins over the environment.
    expect(metricsAddress(['--metrics-port', '9000'], { SELFDEBUG_METRICS_PORT: '9464' })).toMatchObject({
      port: 9000,
    });
  });

  it('refuses a port that is not one, and any other argument', () => {
    expect(metricsAddress(['--metrics-port'], {})).toBe('--metrics-port needs a port number');
    expect(metricsAddress([], { SELFDEBUG_METRICS_PORT: 'http' })).toMatch(
      /must be a number from 0 to 65535.*"http"/,
    );
    expect(metricsAddress(['--metrics-port', '70000'], {})).toMatch(/from 0 to 65535/);
    expect(metricsAddress(['--verbose'], {})).toBe(
      'selfdebug worker takes no arguments but --metrics-port PORT, got: --verbose',
    );
  });
});
