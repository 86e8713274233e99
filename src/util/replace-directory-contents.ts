import { mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Makes `target` an exact copy of what `fill` writes into a fresh staging
 * directory beside it: files the staging copy lacks are removed from the
 * target. Staging next to the target keeps the final moves on one
 * filesystem, and a failed `fill` leaves the target untouched.
 */
export async function replaceDirectoryContents(
  target: string,
  fill: (staging: string) => Promise<void>,
): Promise<void> {
  const staging = await mkdtemp(join(dirname(target), `.${basename(target)}.selfdebug-`));
  try {
    await fill(staging);
    for (const entry of await readdir(target))
      await rm(join(target, entry), { recursive: true, force: true });
    for (const entry of await readdir(staging)) await rename(join(staging, entry), join(target, entry));
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
