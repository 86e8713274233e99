import type { Context, Probot } from 'probot';
import { GitHubCodeHost } from './adapters/github/index.js';
import { cachedRepoConfig } from './app/config-cache.js';
import { registerHandlers } from './app/register-handlers.js';
import { repoConfigLoader } from './app/repo-config-for.js';
import { logStartupChecks } from './cli/startup-checks.js';
import { loadAppConfig } from './config/app-config.js';
import { runJobHandler } from './jobs/job-handler.js';
import { openJobStore, runsJobsInProcess } from './jobs/open-store.js';
import { newJobId } from './jobs/run-job.js';
import { runnerDependencies } from './jobs/runner-dependencies.js';
import { onShutdown } from './jobs/shutdown.js';
import { Worker } from './jobs/worker.js';
import { loadQueueConfig } from './queue/queue-config.js';

/**
 * The Probot app (package "main"): reads and validates its settings once,
 * opens the job queue SELFDEBUG_QUEUE names, and wires webhooks to thin
 * handlers that enqueue jobs. With the memory or SQLite queue this process
 * also runs the jobs; with Redis, `selfdebug worker` processes do. On
 * SIGTERM it takes no new jobs and lets running ones finish or hands them
 * back within SELFDEBUG_SHUTDOWN_SECONDS.
 */
export default function selfdebugApp(app: Probot): void {
  const appConfig = loadAppConfig();
  const queueConfig = loadQueueConfig();
  const inProcess = runsJobsInProcess(appConfig, queueConfig);
  // Built before the queue opens, so a bad setting stops the App before anything is left open.
  const runner = inProcess ? runnerDependencies((id) => app.auth(id), appConfig, app.log) : null;
  const codeHostFor = (context: Context) => new GitHubCodeHost(context.octokit, context.repo());
  const store = openJobStore(appConfig, queueConfig);
  // Not awaited: each missing part is logged as one line with its fix, and the App answers meanwhile.
  void logStartupChecks(process.env, app.log, { queue: appConfig.queue });

  const repoConfigFor = cachedRepoConfig(repoConfigLoader(codeHostFor));
  const handlers = registerHandlers(app, {
    handle: appConfig.handle,
    queue: store,
    codeHostFor,
    repoConfigFor,
    forgetRepoConfig: repoConfigFor.forget,
    newJobId,
    now: () => new Date(),
  });

  const worker = runner
    ? new Worker({
        store,
        concurrency: appConfig.concurrency,
        maxContainers: appConfig.maxContainers,
        logger: app.log,
        handler: runJobHandler(runner, {
          loggerFor: (job) =>
            app.log.child({ job: job.request.id, delivery: job.request.deliveryId, run: job.run }),
        }),
      }).start()
    : null;
  onShutdown(async () => {
    // Acknowledged deliveries still being handled get to enqueue their jobs before the queue closes.
    await handlers.idle();
    if (worker) app.log.info(await worker.stop(queueConfig.shutdownSeconds * 1000), 'worker stopped');
    await store.close();
  }, app.log);
}
