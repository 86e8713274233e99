import type Docker from 'dockerode';
import { describeEndpoint } from './docker-endpoint.js';
import { type ContainerOwner, currentOwner, MANAGED_LABEL, OWNER_LABEL, parseOwner } from './labels.js';
import { mapDockerError } from './map-docker-error.js';

export interface ReapOptions {
  /** Containers older than this are removed whoever created them: no job runs this long. */
  maxAgeMs?: number;
  now?: number;
  owner?: ContainerOwner;
  isProcessAlive?: (pid: number) => boolean;
  /** Narrows the sweep to containers that also carry these `key=value` labels. */
  onlyLabels?: string[];
}

const DEFAULT_REAP_AGE_MS = 6 * 60 * 60 * 1000;

/**
 * Removes selfdebug containers whose creator is gone: on this host, a
 * process that no longer runs; anywhere, anything older than `maxAgeMs`.
 * Containers of live workers (this one or others sharing the engine) stay.
 * Run at start-up, after a crash left containers behind.
 */
export async function reapOrphanContainers(docker: Docker, options: ReapOptions = {}): Promise<string[]> {
  const me = options.owner ?? currentOwner();
  const now = options.now ?? Date.now();
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_REAP_AGE_MS;
  const isAlive = options.isProcessAlive ?? processIsAlive;
  try {
    const listed = await docker.listContainers({
      all: true,
      filters: { label: [`${MANAGED_LABEL}=true`, ...(options.onlyLabels ?? [])] },
    });
    const orphans = listed.filter((info) => {
      const owner = parseOwner(info.Labels[OWNER_LABEL]);
      if (owner && owner.host === me.host && owner.pid === me.pid && owner.startedAt === me.startedAt)
        return false;
      if (now - info.Created * 1000 > maxAgeMs) return true;
      if (!owner) return true;
      return owner.host === me.host && !isAlive(owner.pid);
    });
    const removed: string[] = [];
    for (const info of orphans) {
      try {
        await docker.getContainer(info.Id).remove({ force: true, v: true });
        removed.push(info.Id);
      } catch (error) {
        if ((error as { statusCode?: number }).statusCode !== 404) throw error;
      }
    }
    return removed;
  } catch (error) {
    throw mapDockerError(error, { endpoint: describeEndpoint(docker) });
  }
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
