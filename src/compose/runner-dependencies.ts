import { credentialSecrets } from '../adapters/docker/registry-credentials.js';
import { GitWorkspaceProvider } from '../adapters/git/index.js';
import { GitHubCodeHost, type GitHubOctokit, useReconnectingFetch } from '../adapters/github/index.js';
import { createLanguageModel } from '../adapters/openai/index.js';
import type { JobRunnerDependencies } from '../jobs/run-job.js';
import { type Metrics, noMetrics } from '../metrics/metrics.js';
import type { JobRequest } from '../queue/job-request.js';
import type { Logger } from '../util/logger.js';
import { observeGitHub } from './observe-github.js';
import { observeSandboxes } from './observe-sandbox.js';
import { createSandboxProvider } from './sandbox-provider.js';
import type { RunnerSettings } from './settings.js';
import { setupSecrets } from './setup-extras.js';

/**
 * The job runner's production ports, built once by each process that runs
 * jobs: the App (src/index.ts) and `selfdebug worker`. Both authenticate as
 * the App's installation of the job's repository. Its GitHub requests and
 * sandbox commands are counted in `metrics`.
 */
export function runnerDependencies(
  auth: (installationId: number) => Promise<GitHubOctokit>,
  settings: RunnerSettings,
  logger: Logger,
  metrics: Metrics = noMetrics,
): JobRunnerDependencies {
  return {
    ...installationPorts(auth, metrics),
    workspaces: new GitWorkspaceProvider({
      ...(settings.app.gitLoopbackHttp ? { allowedProtocols: ['https', 'http'] } : {}),
      host: settings.environment,
    }),
    sandboxProviderFor: (config) =>
      observeSandboxes(
        createSandboxProvider(config, {
          host: settings.environment,
          credentials: settings.registryCredentials,
          setupExtras: settings.setupExtras,
          logger,
        }),
        metrics,
      ),
    modelFor: (config) => createLanguageModel(config),
    sandboxConfig: settings.sandbox,
    modelConfig: settings.model,
    appConfig: settings.app,
    logger,
    environment: settings.environment,
    operatorSecrets: [
      ...credentialSecrets(settings.registryCredentials),
      ...setupSecrets(settings.setupExtras),
    ],
  };
}

/** The code host and the git token of the job's repository, both through a fresh Octokit for its installation. */
function installationPorts(
  auth: (installationId: number) => Promise<GitHubOctokit>,
  metrics: Metrics,
): Pick<JobRunnerDependencies, 'codeHostFor' | 'tokenFor'> {
  const octokitFor = async (request: JobRequest) =>
    observeGitHub(useReconnectingFetch(await auth(request.installationId)), metrics);
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
  };
}
