import { DockerSandboxProvider } from '../adapters/docker/docker-sandbox-provider.js';
import type { RegistryCredentials } from '../adapters/docker/registry-credentials.js';
import { LocalSandboxProvider } from '../adapters/local/local-sandbox-provider.js';
import type { Environment } from '../config/read-environment.js';
import type { SandboxConfig } from '../config/sandbox-config.js';
import type { SetupExtras } from '../config/setup-extras.js';
import type { SandboxProvider } from '../sandbox/sandbox.js';
import type { Logger } from '../util/logger.js';

/**
 * The job runner's sandbox adapter (the App and `selfdebug worker`).
 * `host`: the variables the process was started with; a local sandbox
 * passes its commands the few a shell needs to find its tools.
 * `credentials`: the operator's registry logins, for pulling private images.
 */
export function createSandboxProvider(
  config: SandboxConfig,
  options: {
    host: Environment;
    credentials: RegistryCredentials;
    setupExtras?: SetupExtras;
    logger?: Logger;
  },
): SandboxProvider {
  const { host, credentials, logger } = options;
  return config.kind === 'local'
    ? new LocalSandboxProvider(config, { host, ...(logger ? { logger } : {}) })
    : new DockerSandboxProvider(config, undefined, logger, credentials, {
        ...(options.setupExtras ? { setupExtras: options.setupExtras } : {}),
      });
}
