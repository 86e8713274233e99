import type { IncomingMessage, ServerResponse } from 'node:http';

export interface OpsSources {
  /** The Prometheus exposition of this process. */
  metrics: () => Promise<{ contentType: string; text: string }>;
  /** Resolves when this process can do its work (the queue answers); rejects saying why not. */
  ready: () => Promise<void>;
}

/** A node request handler as Probot's `addHandler` takes it: true when it answered, false to pass on. */
export type OpsHandler = (request: IncomingMessage, response: ServerResponse) => Promise<boolean>;

const TEXT = 'text/plain; charset=utf-8';

/**
 * GET /healthz (the process answers: for liveness probes), /readyz (the
 * queue answers: for load balancers and `docker compose` health checks) and
 * /metrics (Prometheus). Anything else is passed on, so on the App's server
 * Probot's webhooks, /ping and its 404 keep working.
 */
export function opsHandler(sources: OpsSources): OpsHandler {
  return async (request, response) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return false;
    const path = (request.url ?? '').split('?')[0];
    switch (path) {
      case '/healthz':
        answer(response, 200, TEXT, 'ok\n');
        return true;
      case '/readyz':
        await sources.ready().then(
          () => answer(response, 200, TEXT, 'ready\n'),
          (error: unknown) => answer(response, 503, TEXT, `not ready: ${messageOf(error)}\n`),
        );
        return true;
      case '/metrics':
        await sources.metrics().then(
          ({ contentType, text }) => answer(response, 200, contentType, text),
          (error: unknown) => answer(response, 500, TEXT, `metrics failed: ${messageOf(error)}\n`),
        );
        return true;
      default:
        return false;
    }
  };
}

function answer(response: ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
  response.end(body);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
