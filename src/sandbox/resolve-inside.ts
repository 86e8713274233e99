import { lstat, readdir, readlink, realpath, unlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative as relativePath, sep } from 'node:path';
import { WorkspacePathError, workspacePathProblem } from '../errors/index.js';
import type { RefusedEntry } from './sandbox.js';

/** As many links as the kernel follows in one lookup (MAXSYMLINKS); past it a path is a loop. */
const MAX_LINK_HOPS = 40;

export interface Resolved {
  /** Where `path` really is, relative to the root, every link inside it followed ('' is the root). */
  resolved: string;
  /** The real folder the path's last part is in, relative to the root. */
  parent: string;
  /** Whether the path (or a folder on the way) exists. */
  exists: boolean;
}

/**
 * Resolves `path` (relative, already checked by workspacePath) under `root`
 * the way the kernel would, part by part from the shortest, and refuses it
 * when a part leads out of `root` (an absolute link, `..`, a chain of links,
 * a dangling link pointing outside) or when links loop. Parts that do not
 * exist yet are where a write would create them. Used on the host, where
 * nothing else changes the tree while it runs.
 */
export async function resolveInside(root: string, path: string): Promise<Resolved | WorkspacePathError> {
  const realRoot = await realpath(root);
  const parts = path.split('/');
  const hops = { count: 0 };
  let base = realRoot;
  let parent = realRoot;
  for (let index = 0; index < parts.length; index++) {
    parent = base;
    const prefix = parts.slice(0, index + 1).join('/');
    const step = await walk(realRoot, base, [parts[index] ?? ''], hops);
    if (step === 'loop') return workspacePathProblem(path, 'link-loop', { blocker: prefix });
    if (step === 'outside') return workspacePathProblem(path, 'outside-link', { blocker: prefix });
    base = step;
    const info = await lstat(base).catch(absent);
    if (info === null) {
      // Missing from here on: a write creates the rest as plain folders and a file.
      const rest = parts.slice(index + 1);
      const folder = rest.length > 0 ? join(base, ...rest.slice(0, -1)) : parent;
      return {
        resolved: below(realRoot, join(base, ...rest)),
        parent: below(realRoot, folder),
        exists: false,
      };
    }
    if (index < parts.length - 1 && !info.isDirectory())
      return workspacePathProblem(path, 'not-a-folder', { blocker: prefix });
  }
  return { resolved: below(realRoot, base), parent: below(realRoot, parent), exists: true };
}

/**
 * Walks `components` from the real folder `from` as the kernel would,
 * following each link through its own target's components. Any step out of
 * `root`, even one that comes back, is 'outside': a link is judged by every
 * folder it passes, so it means the same wherever the tree is moved to.
 */
async function walk(
  root: string,
  from: string,
  components: string[],
  hops: { count: number },
): Promise<string | 'loop' | 'outside'> {
  let current = from;
  for (const component of components) {
    if (component === '' || component === '.') continue;
    const next = component === '..' ? dirname(current) : join(current, component);
    if (!isInside(root, next)) return 'outside';
    const info = await lstat(next).catch(absent);
    if (info?.isSymbolicLink()) {
      hops.count += 1;
      if (hops.count > MAX_LINK_HOPS) return 'loop';
      const target = await readlink(next);
      if (isAbsolute(target)) return 'outside';
      const landed = await walk(root, current, target.split('/'), hops);
      if (landed === 'loop' || landed === 'outside') return landed;
      current = landed;
    } else current = next;
  }
  return current;
}

/** A missing entry is null; any other failure (a name too long, EACCES) is the caller's to map. */
function absent(error: NodeJS.ErrnoException): null {
  if (error.code === 'ENOENT') return null;
  throw error;
}

function isInside(root: string, real: string): boolean {
  return real === root || real.startsWith(`${root}${sep}`);
}

function below(root: string, real: string): string {
  return relativePath(root, real).split(sep).join('/');
}

/**
 * Removes each of `links` (paths of symbolic links under `root`) whose target
 * leads out of `root`, and lists it with the reason: a copy of a workspace
 * must never hold a link that a later reader on the host would follow out.
 */
export async function removeLinksLeaving(root: string, links: readonly string[]): Promise<RefusedEntry[]> {
  const refused: RefusedEntry[] = [];
  for (const link of links) {
    const place = await resolveInside(root, link);
    if (!(place instanceof WorkspacePathError) || place.problem !== 'outside-link') continue;
    const target = await readlink(join(root, link)).catch(() => null);
    if (target === null) continue;
    await unlink(join(root, link));
    refused.push({ path: link, reason: `it is a link to "${target}", which leads out of the workspace` });
  }
  return refused;
}

/** Every symbolic link under `root`, as paths relative to it. */
export async function symlinksUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isSymbolicLink())
    .map((entry) =>
      relativePath(root, join(entry.parentPath ?? entry.path, entry.name))
        .split(sep)
        .join('/'),
    );
}
