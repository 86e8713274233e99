import {
  loadRegistryCredentials,
  type RegistryCredentials,
} from '../adapters/docker/registry-credentials.js';
import { type AppConfig, loadAppConfig } from '../config/app-config.js';
import { loadSandboxConfig } from '../config/load-config.js';
import { loadModelConfig, type ModelConfig } from '../config/model-config.js';
import type { Environment } from '../config/read-environment.js';
import type { SandboxConfig } from '../config/sandbox-config.js';
import type { SetupExtras } from '../config/setup-extras.js';
import { loadQueueConfig, type QueueConfig } from '../queue/queue-config.js';
import { loadSetupExtras } from './setup-extras.js';

/**
 * What the composition root builds from. The entry points (src/index.ts,
 * `selfdebug worker`) read it once from their environment and pass it
 * down; nothing below them reads process.env.
 */
export interface JobSettings {
  app: AppConfig;
  queue: QueueConfig;
}

/** What a process that runs jobs needs beyond the queue's settings. */
export interface RunnerSettings {
  app: AppConfig;
  sandbox: SandboxConfig;
  model: ModelConfig;
  /**
   * The variables the process was started with: where a repository's
   * `secret_env` values are looked up (so the report can redact them), and
   * what git and a local sandbox take PATH, HOME and proxies from.
   */
  environment: Environment;
  /**
   * The operator's registry logins (Docker's config.json, SELFDEBUG_REGISTRY_CREDENTIALS), read at
   * start-up so a malformed value stops the process before it takes a job.
   */
  registryCredentials: RegistryCredentials;
  /** SELFDEBUG_SETUP_ENV_FILE and SELFDEBUG_EXTRA_CA_CERTS, read at start-up like the credentials. */
  setupExtras: SetupExtras;
}

export function readJobSettings(env: Environment): JobSettings {
  return { app: loadAppConfig(env), queue: loadQueueConfig(env) };
}

/**
 * Read apart from the queue's settings: a process that only enqueues (the
 * App beside Redis workers) never needs a model or a sandbox, so their
 * settings cannot stop it.
 */
export function readRunnerSettings(app: AppConfig, env: Environment): RunnerSettings {
  const sandbox = loadSandboxConfig(env);
  return {
    app,
    sandbox,
    setupExtras: loadSetupExtras(sandbox),
    model: loadModelConfig(env),
    environment: env,
    registryCredentials: loadRegistryCredentials(env),
  };
}
