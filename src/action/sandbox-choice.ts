import { stat } from 'node:fs/promises';

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
