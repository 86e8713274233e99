import { lstat, readdir, readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';

/** A workflow file as the secrets analysis reads it (the shape of ci-logs' WorkflowFile). */
export interface CheckoutWorkflow {
  path: string;
  text: string;
}

const FOLDER = '.github/workflows';
/** GitHub itself reads no workflow file past 512 KB; a bigger one is nobody's workflow. */
const MAX_BYTES = 512 * 1024;
const MAX_FILES = 200;

/**
 * The `.github/workflows/*.yml` (and `.yaml`) files of a checkout on the
 * host. The checkout is a stranger's tree: a folder or file that is a link
 * is not followed (it could point at the host's files), and neither is a
 * folder whose real path leaves the checkout. No folder: no files.
 */
export async function readCheckoutWorkflows(root: string): Promise<CheckoutWorkflow[]> {
  const folder = join(root, FOLDER);
  if (!(await isRealFolderInside(root, folder))) return [];
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  const names = entries
    .filter((entry) => entry.isFile() && /\.ya?ml$/.test(entry.name))
    .map((entry) => entry.name)
    .sort()
    .slice(0, MAX_FILES);
  const files: CheckoutWorkflow[] = [];
  for (const name of names) {
    const path = join(folder, name);
    const info = await lstat(path).catch(() => null);
    if (!info?.isFile() || info.size > MAX_BYTES) continue;
    files.push({ path: `${FOLDER}/${name}`, text: await readFile(path, 'utf8') });
  }
  return files;
}

async function isRealFolderInside(root: string, folder: string): Promise<boolean> {
  for (const part of [join(root, '.github'), folder]) {
    const info = await lstat(part).catch(() => null);
    if (!info?.isDirectory()) return false;
  }
  const [realRoot, realFolder] = await Promise.all([realpath(root), realpath(folder)]);
  return realFolder === join(realRoot, FOLDER);
}
