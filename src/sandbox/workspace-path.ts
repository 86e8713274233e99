import { posix } from 'node:path';
import { WorkspacePathError } from '../errors/index.js';

/**
 * Normalises a path the model (or a user) gave for a workspace file and
 * refuses anything that would leave the workspace or touch git's own data.
 */
export function workspacePath(path: string): string {
  const trimmed = path.trim().replace(/\\/g, '/');
  if (trimmed === '' || trimmed.includes('\0')) throw new WorkspacePathError(path, 'it is empty');
  if (posix.isAbsolute(trimmed))
    throw new WorkspacePathError(path, 'it is absolute; use a path relative to the repository root');
  const normalized = posix.normalize(trimmed).replace(/\/+$/, '');
  if (normalized === '.' || normalized === '')
    throw new WorkspacePathError(path, 'it names the workspace itself');
  if (normalized === '..' || normalized.startsWith('../'))
    throw new WorkspacePathError(path, 'it leaves the workspace');
  // At any depth and in any case: a nested `.git` is another repository whose config git would obey.
  if (normalized.split('/').some((part) => part.toLowerCase() === '.git'))
    throw new WorkspacePathError(path, "it is inside git's own .git folder");
  return normalized;
}
