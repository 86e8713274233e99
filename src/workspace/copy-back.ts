import { constants } from 'node:fs';
import { lstat, mkdir, open, symlink, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { SelfdebugError, WorkspacePathError } from '../errors/index.js';
import { copyBackCredentialRefusal } from '../sandbox/credential-plan.js';
import { resolveInside } from '../sandbox/resolve-inside.js';
import type { RefusedEntry, Sandbox, WorkspaceFile } from '../sandbox/sandbox.js';
import { workspacePath } from '../sandbox/workspace-path.js';

export interface CopyBackReport {
  /** Paths written into the checkout, as given. */
  written: string[];
  /** Paths left out, with why; the checkout's copy of each is unchanged. */
  refused: RefusedEntry[];
}

/**
 * Brings the files a run changed from the sandbox into the host checkout,
 * one regular file at a time. The checkout itself is untrusted too (a
 * repository may hold a link `src -> /home`), so nothing is ever written
 * through a symbolic link: a link on the way refuses the file, and a link in
 * the file's own place is replaced by the file. Modes keep only permission
 * bits. A path that cannot be brought back is listed, never thrown: the
 * caller decides what a partial fix is worth.
 */
export async function copyBack(
  sandbox: Pick<Sandbox, 'readFile'>,
  paths: readonly string[],
  dir: string,
): Promise<CopyBackReport> {
  const report: CopyBackReport = { written: [], refused: [] };
  for (const path of paths) {
    try {
      const relative = workspacePath(path);
      const credential = copyBackCredentialRefusal(relative, await hostText(dir, relative));
      if (credential !== null) {
        report.refused.push({ path, reason: credential });
        continue;
      }
      const file = await sandbox.readFile(relative);
      if (file === null) {
        report.refused.push({
          path,
          reason:
            'in the sandbox it is no longer a regular file (gone, a dangling link, a fifo, or too large)',
        });
        continue;
      }
      await writeFileBack(dir, relative, file);
      report.written.push(path);
    } catch (error) {
      if (!(error instanceof SelfdebugError)) throw error;
      report.refused.push({ path, reason: error.message });
    }
  }
  return report;
}

/** The checkout's own text at `relative`, read without following a link; null when there is no such file. */
async function hostText(root: string, relative: string): Promise<string | null> {
  const handle = await open(join(root, relative), constants.O_RDONLY | constants.O_NOFOLLOW).catch(
    () => null,
  );
  if (handle === null) return null;
  try {
    return (await handle.stat()).isFile() ? await handle.readFile('utf8') : null;
  } finally {
    await handle.close();
  }
}

/**
 * Writes what the sandbox read at `relative`: the content where links inside
 * the workspace led (the sandbox refused any leading out), then the link in
 * the path's own place as a link, as git stores one. Both places pass
 * workspacePath again: the sandbox's answer is untrusted.
 */
async function writeFileBack(root: string, relative: string, file: WorkspaceFile): Promise<void> {
  await writeInside(root, workspacePath(file.realPath ?? relative), file.content, file.mode);
  if (file.symlink !== undefined)
    await writeLinkInside(root, workspacePath(file.symlink.path), file.symlink.target);
}

/**
 * Writes `relative` (already checked by workspacePath) under `root` without
 * following a symbolic link anywhere below `root`; throws WorkspacePathError
 * when a link or a file stands in the way.
 */
export async function writeInside(
  root: string,
  relative: string,
  content: Buffer,
  mode: number,
): Promise<void> {
  const target = await clearedPlace(root, relative);
  const permissions = mode & 0o777;
  const handle = await open(
    target,
    constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
    permissions,
  );
  try {
    await handle.writeFile(content);
    await handle.chmod(permissions);
  } finally {
    await handle.close();
  }
}

/**
 * Makes the folders of `relative` under `root`, none through a link, and
 * clears its own place of anything but a regular file (a link of the
 * checkout makes way for the sandbox's entry); returns the absolute path.
 */
async function clearedPlace(root: string, relative: string): Promise<string> {
  const parts = relative.split('/');
  let folder = root;
  for (const part of parts.slice(0, -1)) {
    folder = join(folder, part);
    const info = await lstat(folder).catch(missing);
    if (info === null) await mkdir(folder);
    else if (info.isSymbolicLink())
      throw hostRefusal(
        relative,
        `on the host "${part}" is a symbolic link; selfdebug never writes through one`,
      );
    else if (!info.isDirectory()) throw hostRefusal(relative, `on the host "${part}" is not a folder`);
  }
  const target = join(root, relative);
  const existing = await lstat(target).catch(missing);
  if (existing?.isDirectory()) throw hostRefusal(relative, 'on the host it is a folder');
  if (existing && !existing.isFile()) await unlink(target);
  return target;
}

/**
 * Writes a symbolic link at `relative` under `root`, and takes it away again
 * unless it stays inside `root` on the host too (links the checkout already
 * holds could lead a link that stayed inside the sandbox out).
 */
async function writeLinkInside(root: string, relative: string, linkTarget: string): Promise<void> {
  const place = await clearedPlace(root, relative);
  await unlink(place).catch(missing);
  await symlink(linkTarget, place);
  const landed = await resolveInside(root, relative);
  if (landed instanceof WorkspacePathError) {
    await unlink(place);
    const how = landed.problem === 'link-loop' ? 'loops' : 'leads out of the checkout';
    throw hostRefusal(relative, `on the host the link to "${linkTarget}" ${how}`);
  }
}

function missing(error: NodeJS.ErrnoException): null {
  if (error.code === 'ENOENT') return null;
  throw error;
}

function hostRefusal(path: string, why: string): WorkspacePathError {
  return new WorkspacePathError(path, why);
}
