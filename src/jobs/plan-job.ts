import type { CodeHost } from '../code-host/code-host.js';
import { readRepoConfig } from '../config/repo-config.js';
import type { JobRequest } from '../queue/job-request.js';
import type { PreparedTask } from '../triggers/index.js';
import type { Workspace } from '../workspace/workspace.js';
import { buildTask } from './build-task.js';
import { CI_SECRETS_UNSETTLED, type CiSecretsNotice, ciSecretsNotice } from './ci-secrets-notice.js';
import { startCheckout } from './job-checkout.js';
import type { JobRunnerDependencies } from './job-dependencies.js';
import type { JobOutcome } from './job-ending.js';
import { type JobFix, planJobFix } from './job-fix-plan.js';
import type { JobReporterOptions } from './job-reporter.js';
import type { JobSettings } from './job-settings.js';
import { openJob } from './open-job.js';
import { type ReportTarget, reportTargetOf } from './report-target.js';
import { type JobTarget, resolveTarget } from './resolve-target.js';

/**
 * One job as a value, worked out before anything is written: its settings,
 * where it reads, what the model is told, the fix plan the use case runs
 * (with the ports it names) and what the delivery decision reads besides the
 * loop's result. The clone is its last read, started here so that it runs
 * while the container starts.
 */
interface JobPlan extends JobFix {
  settings: JobSettings;
  target: JobTarget;
  prepared: PreparedTask;
  /** The CI secrets warning the check run carries, read from the checkout (never rejects). */
  ciSecrets: Promise<CiSecretsNotice>;
}

/**
 * What planning came to: a plan, with how its report is written; an invalid
 * `.github/selfdebug.yml` (no job report exists yet); or an ending met while
 * reading the target and the task (a refusal, a failure), which the job's
 * report still tells.
 */
export type PlannedJob =
  | { kind: 'invalid-config'; jobId: string; reportTarget: ReportTarget; message: string }
  | ({ kind: 'planned'; plan: JobPlan } & JobOpened)
  | ({ kind: 'stopped'; outcome: JobOutcome } & JobOpened);

/** What a job that got past its configuration has, however planning ended. */
interface JobOpened {
  reporting: JobReporterOptions;
  /** The clone once started: removed however the job ends, even while it is still being made. */
  checkout: Promise<Workspace> | null;
}

/** Reads what the job needs (configuration, target, task) and plans it; writes nothing. */
export async function planJob(
  request: JobRequest,
  host: CodeHost,
  dependencies: JobRunnerDependencies,
): Promise<PlannedJob> {
  // Worked out once: the config problem, the report and the delivery all speak where it says.
  const reportTarget = reportTargetOf(request);
  const config = await readRepoConfig(host);
  if (!config.ok) return { kind: 'invalid-config', jobId: request.id, reportTarget, message: config.message };
  const job = await openJob({ request, host, dependencies, reportTarget }, config.config);
  const { settings, reporting } = job;
  let target: JobTarget | null = null;
  let checkout: Promise<Workspace> | null = null;
  try {
    target = await resolveTarget(request, host, reportTarget.issueNumber);
    const { command, setup } = settings.repo;
    const prepared = await buildTask(request, host, {
      command,
      setup,
      toolchainImages: settings.sandbox.toolchainImages,
    });
    checkout = startCheckout(job, target, prepared);
    const fix = planJobFix(job, target, prepared, checkout);
    const { redactor, logger } = reporting;
    const check = { request, ciSecretsDue: dependencies.ciSecretsDue, redactor, logger };
    const ciSecrets = checkout
      .then((workspace) => ciSecretsNotice(check, workspace.dir))
      .catch(() => CI_SECRETS_UNSETTLED);
    return { kind: 'planned', reporting, checkout, plan: { settings, target, prepared, ciSecrets, ...fix } };
  } catch (error) {
    return { kind: 'stopped', reporting, checkout, outcome: { stopped: error, target } };
  }
}
