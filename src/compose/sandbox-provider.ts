import { DockerSandboxProvider } from '../adapters/docker/docker-sandbox-provider.js';
import { LocalSandboxProvider } from '../adapters/local/local-sandbox-provider.js';
import type { SandboxConfig } from '../config/sandbox-config.js';
import type { SandboxProvider } from '../sandbox/sandbox.js';
import type { Logger } from '../util/logger.js';

/** The composition root's one place that picks a sandbox adapter. */
export function createSandboxProvider(config: SandboxConfig, logger?: Logger): SandboxProvider {
  return config.kind === 'local'
    ? new LocalSandboxProvider(config, logger)
    : new DockerSandboxProvider(config, undefined, logger);
}
