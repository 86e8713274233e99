import { JOB_LABEL } from '../adapters/docker/labels.js';
import { LocalSandboxProvider, localSandboxWarning } from '../adapters/local/local-sandbox-provider.js';
import type { Environment } from '../config/read-environment.js';
import type { SandboxConfig } from '../config/sandbox-config.js';
import type { SetupExtras } from '../config/setup-extras.js';
import type { SandboxProvider } from '../sandbox/sandbox.js';
import { loadSetupExtras } from './setup-extras.js';

export interface CommandSandboxOptions {
  /** The variables the process was started with: a local sandbox passes on PATH, LANG, LC_ALL and TZ. */
  host: Environment;
  /**
   * How the local sandbox's banner says to go back to Docker, in the terms
   * the person used to leave it (`--sandbox local`, the Action's input);
   * SELFDEBUG_SANDBOX's unless given.
   */
  backToDocker?: string;
  /** Where the local sandbox's banner goes; stderr unless given. */
  warn?: (message: string) => void;
  /** Host folders the Docker sandbox mounts read-only at their own path (the runner's tool cache). */
  readOnlyMounts?: readonly string[];
  /** Already read (the caller redacts its values); else read here from the settings' files. */
  setupExtras?: SetupExtras;
}

/**
 * The sandbox of a command (`selfdebug fix`, `selfdebug eval`, the Action).
 * The Docker adapter is loaded only when the settings choose it, so a run
 * in the local sandbox never loads the Docker client.
 */
export async function loadSandboxProvider(
  config: SandboxConfig,
  options: CommandSandboxOptions,
): Promise<SandboxProvider> {
  if (config.kind === 'local') {
    return new LocalSandboxProvider(config, {
      host: options.host,
      ...(options.warn ? { warn: options.warn } : {}),
      ...(options.backToDocker === undefined ? {} : { warning: localSandboxWarning(options.backToDocker) }),
    });
  }
  const { DockerSandboxProvider } = await import('../adapters/docker/docker-sandbox-provider.js');
  const { loadRegistryCredentials } = await import('../adapters/docker/registry-credentials.js');
  return new DockerSandboxProvider(config, undefined, undefined, loadRegistryCredentials(options.host), {
    readOnlyMounts: options.readOnlyMounts ?? [],
    setupExtras: options.setupExtras ?? loadSetupExtras(config),
  });
}

/** The shell command that removes a job's containers, for a process stopped before it could. */
export function removeContainersCommand(jobId: string): string {
  return `docker rm -f $(docker ps -aq --filter label=${JOB_LABEL}=${jobId})`;
}
