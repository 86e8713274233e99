import type { CodeHost } from '../code-host/code-host.js';
import type { AppConfig } from '../config/app-config.js';
import type { ModelConfig } from '../config/model-config.js';
import type { SandboxConfig } from '../config/sandbox-config.js';
import type { LanguageModel } from '../model/language-model.js';
import type { JobRequest } from '../queue/job-request.js';
import type { SandboxProvider } from '../sandbox/sandbox.js';
import type { Logger } from '../util/logger.js';
import type { WorkspaceProvider } from '../workspace/workspace.js';

/** The ports and settings a job runs with, built by the composition root (and wrapped for its lease). */
export interface JobRunnerDependencies {
  codeHostFor(request: JobRequest): Promise<CodeHost>;
  /** A fresh installation token for git; it never enters the sandbox. */
  tokenFor(request: JobRequest): Promise<string>;
  workspaces: WorkspaceProvider;
  sandboxProviderFor(config: SandboxConfig): SandboxProvider;
  modelFor(config: ModelConfig): LanguageModel;
  sandboxConfig: SandboxConfig;
  modelConfig: ModelConfig;
  appConfig: AppConfig;
  logger: Logger;
  /** Where a repository's `secret_env` values are looked up (the composition root's environment), for the redactor. */
  environment: Record<string, string | undefined>;
  /** Secrets of the operator's own (registry passwords) that a report must never show. */
  operatorSecrets?: readonly string[];
  /** Whether no finished job of `owner/name` has shown the CI secrets warning yet (ciSecretsDue): this job's check run does. */
  ciSecretsDue?: (repository: string) => Promise<boolean>;
}
