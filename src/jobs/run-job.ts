import { randomUUID } from 'node:crypto';
import { runFixPlan } from '../fix/index.js';
import type { JobRequest } from '../queue/job-request.js';
import { CI_SECRETS_UNSETTLED } from './ci-secrets-notice.js';
import { planDelivery } from './delivery-plan.js';
import { executeDelivery } from './execute-delivery.js';
import { deliveryOf } from './job-delivery.js';
import type { JobRunnerDependencies } from './job-dependencies.js';
import { closeJob, type JobOutcome, type RunJobResult } from './job-ending.js';
import { JobReporter } from './job-reporter.js';
import { planJob } from './plan-job.js';
import { reportConfigProblem } from './report-config-problem.js';

export type { JobRunnerDependencies } from './job-dependencies.js';
export type { RunJobResult } from './job-ending.js';

/**
 * Sequences one job, the only place that orders its I/O: the job is planned
 * as one value (plan-job.ts), the use case runs its fix plan once, the
 * delivery is planned, then carried out, and the report, which hears every
 * event, closes it. Every step talks to a port; an early ending is a value
 * the report tells like any other.
 */
export async function runJob(
  request: JobRequest,
  signal: AbortSignal,
  dependencies: JobRunnerDependencies,
): Promise<RunJobResult> {
  const host = await dependencies.codeHostFor(request);
  const planned = await planJob(request, host, dependencies);
  if (planned.kind === 'invalid-config') return reportConfigProblem(planned, host, dependencies);
  const report = new JobReporter(planned.reporting).hear;
  // An ending met while planning (a refusal, a failure) is the outcome; otherwise the plan runs.
  let outcome: JobOutcome;
  if (planned.kind === 'stopped') outcome = planned.outcome;
  else {
    const plan = planned.plan;
    try {
      await report({ type: 'job-started', headSha: plan.target.headSha });
      const delivered = await runFixPlan(plan.fix, {
        ...plan.ports,
        emit: report,
        signal,
        // Pushed and opened before the container is removed, which takes longer than a push.
        deliver: async (ran) => {
          const delivery = await deliveryOf(plan.delivery, ran, report);
          const decided = planDelivery(delivery.input);
          return executeDelivery(decided, delivery.ports);
        },
      });
      outcome = { delivered };
    } catch (error) {
      outcome = { stopped: error, target: plan.target };
    }
  }
  try {
    // A planned job has its check run open by now, and its ending, whatever it is, carries the warning.
    const notice = planned.kind === 'planned' ? await planned.plan.ciSecrets : CI_SECRETS_UNSETTLED;
    if (notice.warning !== null) await report({ type: 'notice', markdown: notice.warning });
    const closed = await closeJob(outcome, report, planned.reporting);
    return { ...closed, ciSecretsShown: notice.settled };
  } finally {
    await (await planned.checkout?.catch(() => null))?.dispose().catch(() => {});
  }
}

export const newJobId = (): string => randomUUID();
