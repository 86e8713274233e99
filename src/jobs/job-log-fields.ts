import type { ClaimedJob } from '../queue/job-store.js';

/**
 * The fields of every log line of one job: its child logger's (see
 * compose/start-jobs.ts) and the worker's own lines when it starts and ends.
 * `trigger` is named as the metrics label is, so a line and a series are
 * matched by the same word; the repository is logged here and kept out of
 * the metrics (see the Metrics port).
 */
export function jobLogFields(job: ClaimedJob): Record<string, unknown> {
  const { request } = job;
  return {
    job: request.id,
    delivery: request.deliveryId,
    run: job.run,
    repository: `${request.repository.owner}/${request.repository.name}`,
    installation: request.installationId,
    trigger: request.trigger.kind,
  };
}
