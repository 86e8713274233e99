import type { CodeHost } from '../code-host/code-host.js';
import { CEILING_TITLE, reportRefusal } from '../jobs/report-refusal.js';
import { reportTargetOf } from '../jobs/report-target.js';
import type { JobRequest } from '../queue/job-request.js';
import type { AppDependencies } from './dependencies.js';

/**
 * Enqueues `job` unless its installation has reached the operator's cost
 * ceiling; then the person asking gets the reason at once (a comment, or a
 * check run for a failed run) and nothing is queued. Says whether the queue
 * accepted the job.
 */
export async function enqueueWithinCeiling(
  dependencies: AppDependencies,
  host: CodeHost,
  job: JobRequest,
): Promise<boolean> {
  const verdict = await dependencies.costCeiling?.check(job.installationId);
  if (verdict?.refused) {
    await reportRefusal(reportTargetOf(job), host, { title: CEILING_TITLE, message: verdict.message });
    return false;
  }
  return (await dependencies.queue.enqueue(job)).accepted;
}
