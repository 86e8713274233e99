import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { launchChromium } from './chromium.js';
import { fillSampleQueue } from './sample-jobs.js';
import { appEnvironment, OPERATOR_TOKEN, serveApp } from './serve-app.js';

describe('the jobs page in headless Chromium', () => {
  let dir: string;
  let app: Awaited<ReturnType<typeof serveApp>>;
  let browser: BrowserContext;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'selfdebug-jobs-browser-'));
    const queuePath = join(dir, 'queue.db');
    await fillSampleQueue(queuePath, new Date());
    for (const [name, value] of Object.entries(appEnvironment(queuePath))) vi.stubEnv(name, value);
    app = await serveApp();
    browser = await launchChromium(join(dir, 'profile'));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    vi.unstubAllEnvs();
    await rm(dir, { recursive: true, force: true });
  });

  it('signs in with ?token=, shows the jobs, totals and chart, and takes a screenshot', async () => {
    const page = await browser.newPage();
    await page.goto(`${app.url}/jobs?token=${OPERATOR_TOKEN}`);
    // The redirect dropped the token from the address bar; the cookie carries the session.
    expect(page.url()).toBe(`${app.url}/jobs`);
    await expect.poll(() => page.locator('h1').innerText()).toBe('selfdebug jobs');
    expect(await page.locator('p.meta').innerText()).toContain('1 queued · 1 running · 12 finished shown');

    // Fix rate: fixed ÷ jobs that set out to fix (acme/web's `explained` job does not count).
    const totals = page.locator('section', { hasText: 'Per repository' }).locator('tbody tr');
    expect(await totals.allInnerTexts()).toEqual([
      expect.stringMatching(/^acme\/api\s+6\s+4\s+67 %\s+\$0\.5240$/),
      expect.stringMatching(/^acme\/web\s+4\s+3\s+100 %\s+\$0\.1226$/),
      expect.stringMatching(/^acme\/cli\s+2\s+1\s+50 %\s+\$0\.0395$/),
      expect.stringMatching(/^All repositories\s+12\s+8\s+73 %\s+\$0\.6861$/),
    ]);
    const open = page.locator('section', { hasText: 'Queued and running' }).locator('tbody tr');
    expect(await open.allInnerTexts()).toEqual([
      expect.stringMatching(/^running\s+acme\/web\s+mention #16\s+1/),
      expect.stringMatching(/^queued\s+acme\/api\s+mention #27\s+0/),
    ]);
    const finished = page.locator('section', { hasText: 'Finished' }).last().locator('tbody tr');
    expect(await finished.count()).toBe(12);
    expect(await finished.first().innerText()).toMatch(
      /acme\/api\s+mention #25\s+fixed\s+1\s+\$0\.0334\s+4 min/,
    );
    expect(await finished.first().locator('a', { hasText: 'pull request' }).getAttribute('href')).toBe(
      'https://github.com/acme/api/pull/125',
    );
    expect(await page.locator('svg.chart rect.bar').count()).toBe(15);
    expect(await page.locator('svg.chart circle.rate').count()).toBeGreaterThan(0);
    expect(await page.locator('svg.chart').isVisible()).toBe(true);

    const shot = join(dir, 'jobs-page.png');
    await page.screenshot({ path: shot, fullPage: true });
    const png = await readFile(shot);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(png.length).toBeGreaterThan(10_000);
  });
});
