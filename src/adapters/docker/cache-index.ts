import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * What the cache keeps beside the App: which store it is (an id written once,
 * so a restarted process still knows its own images from another's on a
 * shared engine) and when each entry was last used.
 */
export class CacheIndex {
  private storeId: Promise<string> | undefined;

  constructor(private readonly dir: string | undefined) {}

  /** The store's id: kept in the folder, or one per process without a folder. */
  id(): Promise<string> {
    this.storeId ??= this.dir ? readOrCreateId(this.dir) : Promise.resolve(randomUUID());
    return this.storeId;
  }

  async lastUses(): Promise<Record<string, number>> {
    if (!this.dir) return {};
    try {
      const parsed: unknown = JSON.parse(await readFile(join(this.dir, 'environments.json'), 'utf8'));
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, number>) : {};
    } catch {
      return {};
    }
  }

  /** Last use, written through a rename so another process never reads half a file. */
  async touch(entry: string): Promise<void> {
    if (!this.dir) return;
    const index = await this.lastUses();
    index[entry] = Date.now();
    await mkdir(this.dir, { recursive: true });
    await replaceFile(join(this.dir, 'environments.json'), JSON.stringify(index));
  }
}

async function readOrCreateId(dir: string): Promise<string> {
  const path = join(dir, 'store-id');
  const existing = await readFile(path, 'utf8').catch(() => '');
  if (/^[\w-]{8,}$/.test(existing.trim())) return existing.trim();
  await mkdir(dir, { recursive: true });
  // Written with `wx`: of two processes starting together, both end up with the one that landed first.
  await writeFile(path, randomUUID(), { flag: 'wx' }).catch(() => {});
  return (await readFile(path, 'utf8')).trim();
}

async function replaceFile(path: string, content: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, content);
  await rename(temporary, path);
}
