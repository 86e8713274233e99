import { stat } from 'node:fs/promises';
import { LocalSandboxProvider, localSandboxWarning } from '../adapters/local/index.js';
import type { parseSandboxConfig } from '../config/load-config.js';
import type { SandboxProvider } from '../sandbox/sandbox.js';

type SandboxConfig = ReturnType<typeof parseSandboxConfig>;

/**
 * The sandbox the inputs chose. `runner` says its risk in the log as an
 * annotation, so it is seen on the run's page, not only in the raw log;
 * `docker` mounts the runner's tool cache read-only at its own path.
 */
export async function sandboxProvider(
  config: SandboxConfig,
  toolCache: string | null,
  warn: (message: string) => void,
): Promise<SandboxProvider> {
  if (config.kind === 'local') {
    const warning = localSandboxWarning('use `sandbox: docker` (the default)');
    return new LocalSandboxProvider(config, undefined, warn, warning);
  }
  // Loaded on demand: a `runner` sandbox never loads the Docker client.
  const { DockerSandboxProvider } = await import('../adapters/docker/docker-sandbox-provider.js');
  return new DockerSandboxProvider(config, undefined, undefined, undefined, {
    readOnlyMounts: toolCache === null ? [] : [toolCache],
  });
}

/** RUNNER_TOOL_CACHE when it names an absolute folder that exists (a self-hosted runner may have none). */
export async function existingToolCache(path: string | undefined): Promise<string | null> {
  if (path === undefined || !path.startsWith('/')) return null;
  const found = await stat(path).catch(() => null);
  return found?.isDirectory() ? path : null;
}

/**
 * The job's PATH entries inside the tool cache, in their order: where
 * actions/setup-node, setup-python, setup-go… put the versions the workflow
 * asked for. In the container they come before the image's own PATH.
 */
export function toolCachePath(jobPath: string | undefined, toolCache: string | null): string[] {
  if (toolCache === null || jobPath === undefined) return [];
  const prefix = toolCache.endsWith('/') ? toolCache : `${toolCache}/`;
  return jobPath.split(':').filter((entry) => entry.startsWith(prefix));
}
