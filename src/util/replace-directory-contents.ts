import { mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Makes `target` an exact copy of what `fill` writes into a fresh staging
 * directory beside it: files the staging copy lacks are removed from the
 * target, except the top-level names in `keep`, which stay as they are (the
 * caller makes sure staging never holds them). Staging next to the target
 * keeps the final moves on one filesystem, and a failed `fill` leaves the
 * target untouched.
 */
export async function replaceDirectoryContents<T>(
  target: string,
  fill: (staging: string) => Promise<T>,
  keep: readonly string[] = [],
): Promise<T> {
  const staging = await mkdtemp(join(dirname(target), `.${basename(target)}.selfdebug-`));
  try {
    const filled = await fill(staging);
    for (const entry of await readdir(target))
      if (!keep.includes(entry)) await rm(join(target, entry), { recursive: true, force: true });
    for (const entry of await readdir(staging))
      if (!keep.includes(entry)) await rename(join(staging, entry), join(target, entry));
    return filled;
  } finally {
    // Retried: a writer that failed may still have a write landing in staging (ENOTEMPTY).
    await rm(staging, { recursive: true, force: true, maxRetries: 5 });
  }
}
