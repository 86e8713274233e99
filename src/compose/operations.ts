import type { ApplicationFunctionOptions, Context, Probot } from 'probot';
import { PrometheusMetrics } from '../adapters/prometheus/index.js';
import type { CodeHost } from '../code-host/code-host.js';
import type { AppConfig } from '../config/app-config.js';
import { QueueError } from '../errors/index.js';
import type { Metrics } from '../metrics/metrics.js';
import type { JobStore } from '../queue/job-store.js';
import type { Logger } from '../util/logger.js';
import { observedContextCodeHost } from './context-code-host.js';
import { type OpsHandler, opsHandler } from './ops-endpoints.js';
import { type OpsServer, startOpsServer } from './ops-server.js';
import { queueDepth, queueReadiness } from './queue-readiness.js';

export interface AppOperations {
  metrics: Metrics;
  /** The handlers' CodeHost, its GitHub requests counted. */
  codeHostFor: (context: Context) => CodeHost;
  /** /healthz, /readyz and /metrics for Probot's server, once the queue is open; it also exports the queue's depth. */
  endpoints(store: JobStore, app: AppConfig): OpsHandler;
}

/** The App's metrics: webhook deliveries by event, the handlers' and in-process jobs' GitHub requests, the queue. */
export function appOperations(app: Probot): AppOperations {
  const metrics = new PrometheusMetrics();
  app.onAny((context) => metrics.webhookReceived(context.name));
  return {
    metrics,
    codeHostFor: observedContextCodeHost(metrics),
    endpoints(store, config) {
      metrics.watchQueue(queueDepth(store));
      return opsHandler({ metrics: () => metrics.exposition(), ready: queueReadiness(store, config) });
    },
  };
}

/**
 * Adds the handler to Probot's server. A Probot loaded without one (tests'
 * `probot.load`, serverless adapters) has nowhere to serve it: that is said
 * once, and the App runs on.
 */
export function addHttpHandler(
  options: Pick<ApplicationFunctionOptions, 'addHandler'> | undefined,
  handler: OpsHandler,
  logger: Logger,
  paths: string,
): void {
  try {
    options?.addHandler(handler);
  } catch (error) {
    logger.debug({ error: String(error) }, `no HTTP server: ${paths} not served`);
  }
}

export interface WorkerOperations {
  metrics: Metrics;
  /**
   * Serves /healthz, /readyz and /metrics at `host`:`port` (0: any free
   * port). Started before the jobs, so a port in use stops the worker before
   * it takes any; it is ready once `store()` gives the open queue and it answers.
   */
  serve(
    app: AppConfig,
    address: { host: string; port: number },
    store: () => JobStore | null,
  ): Promise<OpsServer>;
}

/** A worker's metrics: its jobs, sandbox commands and GitHub requests (the queue's depth is the App's). */
export function workerOperations(): WorkerOperations {
  const metrics = new PrometheusMetrics();
  return {
    metrics,
    serve: (app, { host, port }, store) => {
      const ready = async () => {
        const open = store();
        if (open === null)
          throw new QueueError('the worker is starting and its queue is not open yet; ask again');
        await queueReadiness(open, app)();
      };
      return startOpsServer(opsHandler({ metrics: () => metrics.exposition(), ready }), host, port);
    },
  };
}
