import { constants } from 'node:fs';
import { lstat, mkdir, open, readlink, unlink } from 'node:fs/promises';
import { basename, dirname, join, posix } from 'node:path';
import type { Resolved } from '../../sandbox/resolve-inside.js';
import type { WorkspaceFile } from '../../sandbox/sandbox.js';

/**
 * Reads the file `path` resolved to (resolveInside checked every link on the
 * way). Opened without following a link and without blocking, so a fifo (or a
 * link swapped in meanwhile) is not a regular file: null, as for the Docker
 * sandbox, never a read that waits for a writer.
 */
export async function readResolved(
  workdir: string,
  path: string,
  place: Resolved,
): Promise<WorkspaceFile | null> {
  const handle = await open(
    join(workdir, place.resolved),
    constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
  );
  let file: WorkspaceFile;
  try {
    const info = await handle.stat();
    if (!info.isFile()) return null;
    file = { content: await handle.readFile(), mode: info.mode & 0o777 };
  } finally {
    await handle.close();
  }
  if (place.resolved !== path) file.realPath = place.resolved;
  const own = join(workdir, path);
  if ((await lstat(own)).isSymbolicLink())
    file.symlink = { path: posix.join(place.parent, basename(path)), target: await readlink(own) };
  return file;
}

/**
 * Writes the file `resolved` names (a path with no link left in it): links
 * inside the workspace are written through, like `echo > link` would. What
 * is not a regular file there (a fifo, a socket) is replaced, as the Docker
 * sandbox's archive write replaces it, rather than opened and waited on.
 */
export async function writeResolved(
  workdir: string,
  resolved: string,
  content: string | Buffer,
  mode: number,
): Promise<void> {
  const target = join(workdir, resolved);
  await mkdir(dirname(target), { recursive: true });
  const existing = await lstat(target).catch(() => null);
  if (existing && !existing.isFile() && !existing.isDirectory()) await unlink(target);
  const handle = await open(
    target,
    constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
    mode & 0o777,
  );
  try {
    await handle.writeFile(content);
    await handle.chmod(mode & 0o777);
  } finally {
    await handle.close();
  }
}
