import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../errors/index.js';
import type { OpsHandler } from './ops-endpoints.js';

export interface OpsServer {
  /** Where it listens, e.g. http://127.0.0.1:9464 (the port the system gave when asked for 0). */
  url: string;
  close(): Promise<void>;
}

/**
 * A `selfdebug worker`'s own /metrics, /healthz and /readyz: Prometheus
 * scrapes every instance, and a worker has no Probot server to add them to.
 * Loopback unless the operator names another address (a container's 0.0.0.0).
 */
export async function startOpsServer(handler: OpsHandler, host: string, port: number): Promise<OpsServer> {
  const server = createServer((request, response) => {
    handler(request, response).then(
      (answered) => {
        if (!answered) response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      },
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new ConfigError(
          'SELFDEBUG_METRICS_HOST / SELFDEBUG_METRICS_PORT',
          `cannot serve metrics on ${host}:${port} (${error.code ?? error.message}): pick a free port, or 0 for any`,
          { cause: error },
        ),
      ),
    );
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
