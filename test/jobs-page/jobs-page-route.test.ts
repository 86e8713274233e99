import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { jobsPageHandler } from '../../src/jobs-page/jobs-page-handler.js';
import { MemoryJobStore } from '../../src/queue/memory-store.js';
import { fillSampleQueue } from './sample-jobs.js';
import { appEnvironment, OPERATOR_TOKEN, serveApp } from './serve-app.js';

describe('the jobs page served by the App', () => {
  let dir: string;
  let app: Awaited<ReturnType<typeof serveApp>>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'selfdebug-jobs-page-'));
    const queuePath = join(dir, 'queue.db');
    await fillSampleQueue(queuePath, new Date());
    for (const [name, value] of Object.entries(appEnvironment(queuePath))) vi.stubEnv(name, value);
    app = await serveApp();
  });
  afterAll(async () => {
    await app?.stop();
    vi.unstubAllEnvs();
    await rm(dir, { recursive: true, force: true });
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${app.url}${path}`, { headers, redirect: 'manual' });

  it('answers 401 without the operator token, or with a wrong one, and shows nothing', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer not-the-token' },
      { cookie: 'selfdebug_operator=forged' },
    ];
    for (const headers of attempts) {
      const response = await get('/jobs', headers);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="selfdebug jobs"');
      const body = await response.text();
      expect(body).toContain('Authorization: Bearer');
      expect(body).not.toContain('acme/api');
    }
    expect((await get('/jobs?token=wrong')).status).toBe(401);
  });

  it('answers 200 with the page for the bearer token, never cached and never framed', async () => {
    const response = await get('/jobs', { authorization: `Bearer ${OPERATOR_TOKEN}` });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const body = await response.text();
    expect(body).toContain('<h1>selfdebug jobs</h1>');
    expect(body).toContain('acme/api');
    expect(body).toContain('1 queued · 1 running · 12 finished shown');
    expect(body).not.toContain(OPERATOR_TOKEN);
  });

  it('trades ?token= for an HttpOnly cookie and a redirect that drops the token', async () => {
    const first = await get(`/jobs?token=${OPERATOR_TOKEN}`);
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/jobs');
    const cookie = first.headers.get('set-cookie')!;
    expect(cookie).toMatch(
      /^selfdebug_operator=[0-9a-f]{64}; Path=\/jobs; Max-Age=43200; HttpOnly; SameSite=Strict$/,
    );
    expect(cookie).not.toContain(OPERATOR_TOKEN);
    const page = await get('/jobs', { cookie: cookie.split(';')[0]! });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Per repository');
  });

  it('is read-only, and leaves other paths to the rest of the App', async () => {
    const post = await fetch(`${app.url}/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    });
    expect(post.status).toBe(405);
    expect((await get('/ping')).status).toBe(200);
  });
});

describe('the jobs page without SELFDEBUG_OPERATOR_TOKEN', () => {
  it('is off, and says how to turn it on', async () => {
    const handler = jobsPageHandler({ store: new MemoryJobStore(), token: undefined });
    const server = createServer((request, response) => {
      void handler(request, response).then((handled) => handled || response.writeHead(404).end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const response = await fetch(`http://127.0.0.1:${port}/jobs`, {
        headers: { authorization: 'Bearer anything-at-all-0123456789' },
      });
      expect(response.status).toBe(404);
      expect(await response.text()).toContain('The jobs page is off. Set SELFDEBUG_OPERATOR_TOKEN');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
