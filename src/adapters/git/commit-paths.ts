import { isAbsolute, posix } from 'node:path';
import { WorkspacePathError } from '../../errors/index.js';

/** Paths to commit come from the model: each must name something inside the work tree, outside .git. */
export function assertCommitPaths(paths: readonly string[]): void {
  for (const path of paths) {
    const normalized = posix.normalize(path.replaceAll('\\', '/'));
    const problem =
      path.length === 0 || path.includes('\0')
        ? 'it is empty or contains a NUL character'
        : isAbsolute(path) || posix.isAbsolute(normalized)
          ? 'it is absolute'
          : normalized === '..' || normalized.startsWith('../')
            ? 'it leaves the workspace'
            : normalized.split('/').some((part) => part.toLowerCase() === '.git')
              ? "it is inside git's own folder"
              : undefined;
    if (problem !== undefined) throw new WorkspacePathError(path, problem);
  }
}
