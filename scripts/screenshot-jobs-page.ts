/**
 * Makes docs/images/jobs-page.png: the real App on 127.0.0.1 with a SQLite
 * queue holding a fortnight of sample jobs, opened in Debian's headless
 * Chromium (test/jobs-page/chromium.ts). Run once after the page changes:
 *
 *   npx tsx scripts/screenshot-jobs-page.ts
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from '../test/jobs-page/chromium.js';
import { fillSampleQueue } from '../test/jobs-page/sample-jobs.js';
import { appEnvironment, OPERATOR_TOKEN, serveApp } from '../test/jobs-page/serve-app.js';

const OUTPUT = join(import.meta.dirname, '..', 'docs', 'images', 'jobs-page.png');

const dir = await mkdtemp(join(tmpdir(), 'selfdebug-screenshot-'));
const queuePath = join(dir, 'queue.db');
await fillSampleQueue(queuePath, new Date());
Object.assign(process.env, appEnvironment(queuePath));
const app = await serveApp();
const browser = await launchChromium(join(dir, 'profile'));
try {
  const page = await browser.newPage();
  await page.goto(`${app.url}/jobs?token=${OPERATOR_TOKEN}`);
  await page.locator('svg.chart').waitFor();
  await mkdir(join(OUTPUT, '..'), { recursive: true });
  await page.screenshot({ path: OUTPUT, fullPage: true });
  console.log(`wrote ${OUTPUT}`);
} finally {
  await browser.close();
  await app.stop();
  await rm(dir, { recursive: true, force: true });
  // The App's queue and signal handlers would keep the process alive.
  process.exit(0);
}
