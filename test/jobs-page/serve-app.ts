import { generateKeyPairSync } from 'node:crypto';
import { Probot, Server } from 'probot';
import selfdebugApp from '../../src/index.js';
import { freePort } from '../helpers/registry.js';

export const OPERATOR_TOKEN = 'op-token-0123456789abcdefghijklmnop';

/**
 * The real App (src/index.ts) on Probot's own server at 127.0.0.1, with a
 * SQLite queue at `queuePath` and no in-process worker, so the page shows
 * the jobs as they were left. The caller sets the environment first.
 */
export async function serveApp(): Promise<{ url: string; stop: () => Promise<void> }> {
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const port = await freePort();
  const options = { appId: 123, privateKey, secret: 'webhook-secret', logLevel: 'fatal' as const };
  const server = new Server({
    Probot: Probot.defaults(options),
    // The server's own request log, quiet like the App's.
    log: new Probot(options).log,
    host: '127.0.0.1',
    port,
  });
  await server.load(selfdebugApp);
  await server.start();
  return { url: `http://127.0.0.1:${port}`, stop: () => server.stop() };
}

/** The environment serveApp's App reads: the SQLite queue at `queuePath`, the page on. */
export function appEnvironment(queuePath: string): Record<string, string> {
  return {
    SELFDEBUG_QUEUE: 'sqlite',
    SELFDEBUG_QUEUE_PATH: queuePath,
    SELFDEBUG_IN_PROCESS_WORKER: 'false',
    SELFDEBUG_OPERATOR_TOKEN: OPERATOR_TOKEN,
    // The App's start-up check looks for its sandbox image: the local test image, so nothing is pulled.
    SELFDEBUG_SANDBOX_IMAGE: process.env.SELFDEBUG_TEST_IMAGE ?? 'selfdebug-executor:test',
  };
}
