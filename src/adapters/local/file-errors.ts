import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type WorkspacePathError, workspacePathProblem } from '../../errors/index.js';

/**
 * Node's error codes for a path the file system refuses, turned into our
 * typed error at this edge, so the loop can hand the model a precise message
 * instead of ending the job on `ENOTDIR`. Anything else (a full disk, EIO)
 * is not the model's doing and is left to end the job.
 */
export async function mapFileError(
  error: unknown,
  path: string,
  workdir: string,
): Promise<WorkspacePathError | null> {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'ENOTDIR':
    // mkdir -p answers EEXIST when a part of the folder path already exists as a file.
    case 'EEXIST':
      return workspacePathProblem(path, 'not-a-folder', {
        cause: error,
        blocker: await firstFileInPath(path, workdir),
      });
    case 'EISDIR':
      return workspacePathProblem(path, 'is-a-folder', { cause: error });
    case 'ENAMETOOLONG':
      return workspacePathProblem(path, 'name-too-long', { cause: error });
    case 'EACCES':
    case 'EPERM':
      return workspacePathProblem(path, 'permission-denied', { cause: error });
    case 'ELOOP':
      return workspacePathProblem(path, 'link-loop', { cause: error });
    default:
      return null;
  }
}

/** The first leading part of `path` that exists and is not a folder, e.g. `total.py` of `total.py/helpers.py`. */
async function firstFileInPath(path: string, workdir: string): Promise<string | undefined> {
  const parts = path.split('/');
  for (let depth = 1; depth < parts.length; depth++) {
    const prefix = parts.slice(0, depth).join('/');
    // stat, not lstat: a link to a folder is a folder as far as the path goes.
    const info = await stat(join(workdir, prefix)).catch(() => null);
    if (info === null) return undefined;
    if (!info.isDirectory()) return prefix;
  }
  return undefined;
}
