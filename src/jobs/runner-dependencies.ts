import type { Logger } from 'probot';
import { GitWorkspaceProvider } from '../adapters/git/index.js';
import { GitHubCodeHost, type GitHubOctokit, useReconnectingFetch } from '../adapters/github/index.js';
import { createLanguageModel } from '../adapters/openai/index.js';
import { createSandboxProvider } from '../adapters/sandbox-provider.js';
import type { AppConfig } from '../config/app-config.js';
import { loadSandboxConfig } from '../config/load-config.js';
import { loadModelConfig } from '../config/model-config.js';
import type { JobRequest } from '../queue/job-request.js';
import type { JobRunnerDependencies } from './run-job.js';

/**
 * The job runner's production ports, built once by each entry point that
 * runs jobs: the App (src/index.ts) and `selfdebug worker`. Both
 * authenticate as the App's installation of the job's repository.
 */
export function runnerDependencies(
  auth: (installationId: number) => Promise<GitHubOctokit>,
  appConfig: AppConfig,
  logger: Logger,
): JobRunnerDependencies {
  const octokitFor = async (request: JobRequest) => useReconnectingFetch(await auth(request.installationId));
  return {
    codeHostFor: async (request) =>
      new GitHubCodeHost(await octokitFor(request), {
        owner: request.repository.owner,
        repo: request.repository.name,
      }),
    tokenFor: async (request) => {
      const installation = (await (await octokitFor(request)).auth({ type: 'installation' })) as {
        token: string;
      };
      return installation.token;
    },
    workspaces: new GitWorkspaceProvider(
      appConfig.gitLoopbackHttp ? { allowedProtocols: ['https', 'http'] } : {},
    ),
    sandboxProviderFor: (config) => createSandboxProvider(config, logger),
    modelFor: (config) => createLanguageModel(config),
    sandboxConfig: loadSandboxConfig(),
    modelConfig: loadModelConfig(),
    appConfig,
    logger,
  };
}
