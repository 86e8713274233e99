import type { ApplicationFunctionOptions, Probot } from 'probot';
import { cachedRepoConfig } from './app/config-cache.js';
import { registerHandlers } from './app/register-handlers.js';
import { repoConfigLoader } from './app/repo-config-for.js';
import { addHttpHandler, appOperations } from './compose/operations.js';
import { readJobSettings, readRunnerSettings } from './compose/settings.js';
import { startJobs } from './compose/start-jobs.js';
import { logStartupChecks } from './compose/startup-checks.js';
import { newJobId } from './jobs/run-job.js';
import { jobsPageHandler } from './jobs-page/jobs-page-handler.js';
import { costCeilingFor } from './queue/cost-ceiling.js';

/**
 * The Probot app (package "main"): reads and validates its settings once,
 * opens the job queue SELFDEBUG_QUEUE names, and wires webhooks to thin
 * handlers that enqueue jobs. With the memory or SQLite queue this process
 * also runs the jobs; with Redis, `selfdebug worker` processes do. On
 * SIGTERM it takes no new jobs and lets running ones finish or hands them
 * back within SELFDEBUG_SHUTDOWN_SECONDS. Its server also answers /healthz,
 * /readyz and /metrics (docs/operate.md).
 */
export default function selfdebugApp(app: Probot, options?: ApplicationFunctionOptions): void {
  const settings = readJobSettings(process.env);
  const operations = appOperations(app);
  const jobs = startJobs({
    settings,
    runnerSettings: () => readRunnerSettings(settings.app, process.env),
    auth: (id) => app.auth(id),
    logger: app.log,
    // Acknowledged deliveries still being handled get to enqueue their jobs before the queue closes.
    beforeStop: () => handlers.idle(),
    metrics: operations.metrics,
  });
  addHttpHandler(
    options,
    operations.endpoints(jobs.store, settings.app),
    app.log,
    '/healthz, /readyz and /metrics are',
  );
  // Not awaited: each missing part is logged as one line with its fix, and the App answers meanwhile.
  void logStartupChecks(process.env, app.log, { queue: settings.app.queue });

  const repoConfigFor = cachedRepoConfig(repoConfigLoader(operations.codeHostFor));
  const handlers = registerHandlers(app, {
    handle: settings.app.handle,
    queue: jobs.store,
    codeHostFor: operations.codeHostFor,
    repoConfigFor,
    forgetRepoConfig: repoConfigFor.forget,
    newJobId,
    now: () => new Date(),
    costCeiling: costCeilingFor(settings.app, jobs.store),
    ciVerdicts: jobs.ciVerdicts,
  });
  // The operator's read-only jobs page at /jobs (off without SELFDEBUG_OPERATOR_TOKEN).
  addHttpHandler(
    options,
    jobsPageHandler({ store: jobs.store, token: settings.app.operatorToken }),
    app.log,
    '/jobs is',
  );
}
