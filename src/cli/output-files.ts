import { constants } from 'node:fs';
import { access, mkdtemp, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError } from './option-values.js';

/**
 * Files the CLI writes at the end of a run (--patch, --record). Checked
 * before the run, so a typo costs seconds rather than a whole run; and if
 * writing still fails at the end, the result goes to a temporary file
 * rather than being lost.
 */

/** Throws a UsageError naming `flag` unless `path` can be written: its folder exists and is writable. */
export async function checkOutputPath(flag: string, path: string, command = 'fix'): Promise<void> {
  const absolute = resolve(path);
  const folder = dirname(absolute);
  const refuse = (why: string) => new UsageError(`${flag} "${path}": ${why}`, command);
  const existing = await stat(absolute).catch(() => null);
  if (existing?.isDirectory())
    throw refuse(`is a folder. Give a file name, e.g. ${flag} ${join(path, 'fix.patch')}.`);
  const parent = await stat(folder).catch(() => null);
  if (parent === null) {
    throw refuse(
      `the folder ${folder} does not exist. Create it (mkdir -p ${folder}) or give a path in an existing folder.`,
    );
  }
  if (!parent.isDirectory()) throw refuse(`${folder} is not a folder. Give a path in an existing folder.`);
  const target = existing ? absolute : folder;
  try {
    await access(target, constants.W_OK);
  } catch {
    throw refuse(`${target} cannot be written by this user. Give a path you can write to.`);
  }
}

export type WriteOutcome = { path: string; rescued: false } | { path: string; rescued: true; why: string };

/** Writes `text` to `path`; when that fails, to a file of the same name in a new temporary folder. */
export async function writeOrRescue(
  path: string,
  text: string,
  write: (path: string, text: string) => Promise<void> = (target, content) => writeFile(target, content),
): Promise<WriteOutcome> {
  try {
    await write(path, text);
    return { path, rescued: false };
  } catch (error) {
    const why = (error as { code?: string }).code ?? (error instanceof Error ? error.message : String(error));
    const folder = await mkdtemp(join(tmpdir(), 'selfdebug-'));
    const rescue = join(folder, basename(path) || 'output');
    await writeFile(rescue, text);
    return { path: rescue, rescued: true, why };
  }
}
