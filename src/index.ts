import type { Context, Probot } from 'probot';
import { GitWorkspaceProvider } from './adapters/git/index.js';
import { GitHubCodeHost } from './adapters/github/index.js';
import { createLanguageModel } from './adapters/openai/index.js';
import { createSandboxProvider } from './adapters/sandbox-provider.js';
import { registerHandlers } from './app/register-handlers.js';
import { repoConfigLoader } from './app/repo-config-for.js';
import { loadAppConfig } from './config/app-config.js';
import { loadSandboxConfig } from './config/load-config.js';
import { loadModelConfig } from './config/model-config.js';
import type { JobRequest } from './jobs/job-request.js';
import { MemoryQueue } from './jobs/memory-queue.js';
import { type JobRunnerDependencies, newJobId, runJob } from './jobs/run-job.js';

/**
 * The Probot app (package "main"): reads and validates its settings once,
 * builds the adapters, and wires webhooks to thin handlers that enqueue
 * jobs. Jobs run in this process's queue; nothing else happens here.
 */
export default function selfdebugApp(app: Probot): void {
  const appConfig = loadAppConfig();
  const sandboxConfig = loadSandboxConfig();
  const modelConfig = loadModelConfig();
  const codeHostFor = (context: Context) => new GitHubCodeHost(context.octokit, context.repo());

  const installationOctokit = (request: JobRequest) => app.auth(request.installationId);
  const runner: JobRunnerDependencies = {
    codeHostFor: async (request) =>
      new GitHubCodeHost(await installationOctokit(request), {
        owner: request.repository.owner,
        repo: request.repository.name,
      }),
    tokenFor: async (request) => {
      const auth = (await (await installationOctokit(request)).auth({ type: 'installation' })) as {
        token: string;
      };
      return auth.token;
    },
    workspaces: new GitWorkspaceProvider(),
    sandboxProviderFor: (config) => createSandboxProvider(config, app.log),
    modelFor: (config) => createLanguageModel(config),
    sandboxConfig,
    modelConfig,
    appConfig,
    logger: app.log,
  };
  const queue = new MemoryQueue(
    (request, signal) =>
      runJob(request, signal, {
        ...runner,
        logger: app.log.child({ job: request.id, delivery: request.deliveryId }),
      }),
    appConfig.concurrency,
    (request, error) => app.log.error({ job: request.id, error: String(error) }, 'job crashed'),
  );

  registerHandlers(app, {
    handle: appConfig.handle,
    queue,
    codeHostFor,
    repoConfigFor: repoConfigLoader(codeHostFor),
    newJobId,
    now: () => new Date(),
  });
}
