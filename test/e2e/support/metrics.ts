import { until } from '../../helpers/until.js';
import type { Child } from './processes.js';

/**
 * Reading what Prometheus would scrape: a `selfdebug worker`'s metrics
 * address from its start-up line, and samples from the text format.
 */

/** Waits for the worker's "metrics at http://…/metrics" line (it asked for port 0, so the system chose). */
export async function metricsUrlOf(worker: Child, timeoutMs = 60_000): Promise<string> {
  let url: string | undefined;
  await until(
    `${worker.name} to serve metrics`,
    () => {
      url = /metrics at (http:\/\/[\w.:[\]]+\/metrics)/.exec(worker.output)?.[1];
      if (url === undefined && !worker.running)
        throw new Error(`${worker.name} exited before serving metrics\n${worker.tail()}`);
      return url !== undefined;
    },
    { timeoutMs, intervalMs: 100, context: () => worker.tail() },
  );
  return url!;
}

export async function scrape(url: string): Promise<{ status: number; contentType: string; text: string }> {
  const response = await fetch(url);
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    text: await response.text(),
  };
}

/**
 * The sum of the samples named `name` whose labels include `labels` (0 when
 * none), e.g. sample(text, 'selfdebug_jobs_finished_total', { outcome: 'fixed' }).
 */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1], pair[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) total += Number(match[3]);
  }
  return total;
}
