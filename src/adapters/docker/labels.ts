import { hostname } from 'node:os';

/** Every container selfdebug creates carries these labels, so leftovers can be found and reaped. */
export const MANAGED_LABEL = 'dev.selfdebug.managed';
export const JOB_LABEL = 'dev.selfdebug.job';
export const OWNER_LABEL = 'dev.selfdebug.owner';

/** Identifies the process that created a container: host, pid and that process's start time. */
export interface ContainerOwner {
  host: string;
  pid: number;
  startedAt: number;
}

const processStartedAt = Date.now() - Math.round(process.uptime() * 1000);

export function currentOwner(): ContainerOwner {
  return { host: hostname(), pid: process.pid, startedAt: processStartedAt };
}

function formatOwner(owner: ContainerOwner): string {
  return `${owner.host}/${owner.pid}/${owner.startedAt}`;
}

export function parseOwner(label: string | undefined): ContainerOwner | null {
  const match = /^(.+)\/(\d+)\/(\d+)$/.exec(label ?? '');
  if (!match) return null;
  return { host: match[1]!, pid: Number(match[2]), startedAt: Number(match[3]) };
}

export function containerLabels(
  jobId: string,
  owner: ContainerOwner = currentOwner(),
): Record<string, string> {
  return { [MANAGED_LABEL]: 'true', [JOB_LABEL]: jobId, [OWNER_LABEL]: formatOwner(owner) };
}
