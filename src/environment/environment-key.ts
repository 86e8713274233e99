import { createHash } from 'node:crypto';
import type { SetupCommand } from '../sandbox/environment.js';

/**
 * The layout of a prepared image; a change to it (where setup's files are
 * kept) makes every earlier prepared image unusable, so it is in the key.
 */
const LAYOUT = 3;

/**
 * The prepared environment's key: the layout, the base image's id (its
 * content digest), the setup commands as given, and the content of every
 * workspace file setup can read (see setupInputDigests). Whose entry it is
 * (tenant, repository, ref) is added by the cache (see cache-scope.ts).
 */
export function environmentKey(input: {
  baseImageId: string;
  setup: readonly SetupCommand[];
  lockfiles: Record<string, string>;
}): string {
  const canonical = JSON.stringify({
    layout: LAYOUT,
    base: input.baseImageId,
    setup: input.setup.map((step) => ({
      command: step.command,
      cwd: step.cwd ?? '.',
      env: Object.entries(step.env ?? {}).sort(([a], [b]) => a.localeCompare(b)),
    })),
    lockfiles: Object.entries(input.lockfiles).sort(([a], [b]) => a.localeCompare(b)),
  });
  return createHash('sha256').update(canonical).digest('hex');
}
