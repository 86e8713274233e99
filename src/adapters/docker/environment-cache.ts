import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { EnvironmentSnapshotError } from '../../errors/index.js';
import type { Logger } from '../../util/logger.js';

export const ENVIRONMENT_LABEL = 'dev.selfdebug.environment';
const BUILT_LABEL = 'dev.selfdebug.environment.built';
const REPOSITORY = 'selfdebug-env';

/**
 * Where a prepared image keeps what setup left in the workspace. The loop's
 * workspace is a fresh tmpfs (see containerSpec), which hides whatever the
 * image has at that path, so the prepared files wait here and are copied in
 * when a sandbox opens.
 */
export const PREPARED_WORKSPACE = '/opt/selfdebug/prepared-workspace';

export interface CachedEnvironment {
  image: string;
  key: string;
  builtAt: string;
}

export interface CacheLimits {
  entries: number;
  gigabytes: number;
  /** Where the index of last uses lives; without it, builds' ages stand in for use. */
  dir?: string;
}

/**
 * Prepared environments as images on the engine, tagged by key. The key is
 * also a label, so an image under the right tag but without it (retagged by
 * hand, half written) counts as broken and is dropped. Which entries go
 * first is decided by last use, kept in a small index file next to the App.
 */
export class EnvironmentCache {
  constructor(
    private readonly docker: Docker,
    private readonly limits: CacheLimits,
    private readonly logger: Logger,
  ) {}

  static tagOf(key: string): string {
    return `${REPOSITORY}:${key.slice(0, 32)}`;
  }

  async lookup(key: string): Promise<CachedEnvironment | null> {
    if (this.limits.entries === 0) return null;
    const image = EnvironmentCache.tagOf(key);
    const info = await this.docker
      .getImage(image)
      .inspect()
      .catch(() => null);
    if (!info) return null;
    const labels = info.Config?.Labels ?? {};
    if (labels[ENVIRONMENT_LABEL] !== key) {
      this.logger.warn({ image }, 'discarding a prepared environment whose label does not match its key');
      await this.discard(key);
      return null;
    }
    await this.touch(key);
    return { image, key, builtAt: labels[BUILT_LABEL] ?? info.Created };
  }

  /** Saves the setup container as the key's image. */
  async save(container: Docker.Container, key: string, user: string): Promise<CachedEnvironment> {
    const builtAt = new Date().toISOString();
    const tag = EnvironmentCache.tagOf(key);
    try {
      await container.commit({
        repo: REPOSITORY,
        tag: tag.split(':')[1],
        pause: true,
        changes: [`LABEL ${ENVIRONMENT_LABEL}=${key} ${BUILT_LABEL}=${builtAt}`, `USER ${user}`],
      });
    } catch (error) {
      const detail = (error as { json?: { message?: string } }).json?.message ?? String(error);
      throw new EnvironmentSnapshotError(detail, { cause: error });
    }
    await this.touch(key);
    return { image: tag, key, builtAt };
  }

  async discard(key: string): Promise<void> {
    await this.docker
      .getImage(EnvironmentCache.tagOf(key))
      .remove({ force: true })
      .catch(() => {});
  }

  /** Removes the least recently used entries past the limits; `keep` (the one in use) always stays. */
  async evict(keep: string): Promise<string[]> {
    const images = await this.docker.listImages({ filters: { label: [ENVIRONMENT_LABEL] } });
    const used = await this.readIndex();
    const entries = images
      .map((image) => {
        const key = image.Labels?.[ENVIRONMENT_LABEL] ?? '';
        return { key, size: image.Size, lastUsed: used[key] ?? image.Created * 1000 };
      })
      .sort((a, b) => b.lastUsed - a.lastUsed);
    const maxBytes = this.limits.gigabytes * 1e9;
    const removed: string[] = [];
    let count = 0;
    let bytes = 0;
    for (const entry of entries) {
      count += 1;
      bytes += entry.size;
      if (entry.key === keep || (count <= this.limits.entries && bytes <= maxBytes)) continue;
      await this.discard(entry.key);
      removed.push(entry.key);
      count -= 1;
      bytes -= entry.size;
    }
    if (removed.length > 0) this.logger.info({ removed }, 'evicted prepared environments');
    return removed;
  }

  private indexPath(): string | null {
    return this.limits.dir ? join(this.limits.dir, 'environments.json') : null;
  }

  private async readIndex(): Promise<Record<string, number>> {
    const path = this.indexPath();
    if (!path) return {};
    try {
      const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, number>) : {};
    } catch {
      return {};
    }
  }

  /** Last use, written through a rename so another process never reads half a file. */
  private async touch(key: string): Promise<void> {
    const path = this.indexPath();
    if (!path || !this.limits.dir) return;
    const index = await this.readIndex();
    index[key] = Date.now();
    await mkdir(this.limits.dir, { recursive: true });
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(index));
    await rename(temporary, path);
  }
}
