import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLanguageModel, ServerProfiles } from '../../src/adapters/openai/index.js';
import { type ModelConfigInput, parseModelConfig } from '../../src/config/model-config.js';

/** A model for `server` with its own profile cache, so no test learns from another. */
export function modelFor(server: { url: string }, config: ModelConfigInput) {
  return createLanguageModel(parseModelConfig({ baseUrl: server.url, maxRetries: 0, ...config }), {
    profiles: new ServerProfiles(),
  });
}

/** A server that takes every request and never answers: a call to it ends only when its caller aborts. */
export async function silentServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(() => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** An address where nothing listens: a server's, closed before anything is sent. */
export async function closedAddress(): Promise<{ url: string }> {
  const { url, close } = await silentServer();
  await close();
  return { url };
}
