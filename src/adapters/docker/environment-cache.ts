import type Docker from 'dockerode';
import { entriesToEvict } from '../../environment/cache-eviction.js';
import { entryKey, refsToRead, repositoryOf } from '../../environment/cache-scope.js';
import { PREPARED_IMAGE_REPOSITORY } from '../../environment/image-policy.js';
import { EnvironmentSnapshotError } from '../../errors/index.js';
import type { CacheScope } from '../../sandbox/environment.js';
import type { Logger } from '../../util/logger.js';
import { CacheIndex } from './cache-index.js';

/** Every prepared image carries it (its entry key): how the cache, and the image policy, know one. */
export const ENVIRONMENT_LABEL = 'dev.selfdebug.environment';
const BUILT_LABEL = 'dev.selfdebug.environment.built';
/** The store that made the image: a process evicts only its own store's images. */
export const STORE_LABEL = 'dev.selfdebug.environment.store';
const REPOSITORY_LABEL = 'dev.selfdebug.environment.repository';
const REF_LABEL = 'dev.selfdebug.environment.ref';
const PREPARED_REPOSITORY = PREPARED_IMAGE_REPOSITORY;

/**
 * Where a prepared image keeps what setup left in the workspace. The loop's
 * workspace is a fresh tmpfs (see containerSpec), which hides whatever the
 * image has at that path, so the prepared files wait here and are copied in
 * when a sandbox opens.
 */
export const PREPARED_WORKSPACE = '/opt/selfdebug/prepared-workspace';

export interface CachedEnvironment {
  image: string;
  /** The entry's name: the environment key inside its scope and ref. */
  entry: string;
  /** The ref whose entry it is (the job's own, or the default branch's). */
  ref: string;
  builtAt: string;
}

export interface CacheLimits {
  entries: number;
  /** Most entries one repository keeps. */
  repositoryEntries: number;
  gigabytes: number;
  /** Where the store's id and the index of last uses live; without it, a new store per process. */
  dir?: string;
}

/**
 * Prepared environments as images on the engine, scoped like GitHub Actions'
 * cache (see CacheScope): an entry is named by the environment key, the
 * tenant, the repository and the ref, and a job reads its own ref's entry,
 * then the default branch's. The entry is also a label, so an image under
 * the right tag but without it (retagged by hand, half written) is passed over.
 */
export class EnvironmentCache {
  private readonly index: CacheIndex;

  constructor(
    private readonly docker: Docker,
    private readonly limits: CacheLimits,
    private readonly logger: Logger,
  ) {
    this.index = new CacheIndex(limits.dir);
  }

  static tagOf(entry: string): string {
    return `${PREPARED_REPOSITORY}:${entry.slice(0, 32)}`;
  }

  async lookup(scope: CacheScope | undefined, key: string): Promise<CachedEnvironment | null> {
    if (this.limits.entries === 0 || !scope) return null;
    for (const ref of refsToRead(scope)) {
      const found = await this.inspect(entryKey(scope, ref, key), ref);
      if (found) return found;
    }
    return null;
  }

  /** Saves the setup container as the entry of the job's own ref, and only that. */
  async save(
    container: Docker.Container,
    scope: CacheScope,
    key: string,
    user: string,
  ): Promise<CachedEnvironment> {
    const builtAt = new Date().toISOString();
    const entry = entryKey(scope, scope.ref, key);
    const labels = {
      [ENVIRONMENT_LABEL]: entry,
      [BUILT_LABEL]: builtAt,
      [STORE_LABEL]: await this.index.id(),
      [REPOSITORY_LABEL]: repositoryOf(scope),
      [REF_LABEL]: scope.ref,
    };
    const label = Object.entries(labels).map(([name, value]) => `${name}=${JSON.stringify(value)}`);
    try {
      await container.commit({
        repo: PREPARED_REPOSITORY,
        tag: EnvironmentCache.tagOf(entry).split(':')[1],
        pause: true,
        changes: [`LABEL ${label.join(' ')}`, `USER ${user}`],
      });
    } catch (error) {
      const detail = (error as { json?: { message?: string } }).json?.message ?? String(error);
      throw new EnvironmentSnapshotError(detail, { cause: error });
    }
    await this.index.touch(entry);
    return { image: EnvironmentCache.tagOf(entry), entry, ref: scope.ref, builtAt };
  }

  /** Removes a broken entry, if this store made it; another store's image is only passed over. */
  async discard(entry: string): Promise<void> {
    const image = this.docker.getImage(EnvironmentCache.tagOf(entry));
    const info = await image.inspect().catch(() => null);
    if (info?.Config?.Labels?.[STORE_LABEL] !== (await this.index.id())) return;
    await image.remove({ force: true }).catch(() => {});
  }

  /** Removes this store's least recently used entries past the limits; `keep` (the one in use) always stays. */
  async evict(keep: string): Promise<string[]> {
    const store = await this.index.id();
    const images = await this.docker.listImages({ filters: { label: [`${STORE_LABEL}=${store}`] } });
    const used = await this.index.lastUses();
    const entries = images.map((image) => {
      const entry = image.Labels?.[ENVIRONMENT_LABEL] ?? '';
      const repository = image.Labels?.[REPOSITORY_LABEL] ?? '';
      return { entry, repository, bytes: image.Size, lastUsed: used[entry] ?? image.Created * 1000 };
    });
    const removed = entriesToEvict(entries, this.limits, keep);
    for (const entry of removed) await this.discard(entry);
    if (removed.length > 0) this.logger.info({ removed }, 'evicted prepared environments');
    return removed;
  }

  private async inspect(entry: string, ref: string): Promise<CachedEnvironment | null> {
    const image = EnvironmentCache.tagOf(entry);
    const info = await this.docker
      .getImage(image)
      .inspect()
      .catch(() => null);
    if (!info) return null;
    const labels = info.Config?.Labels ?? {};
    if (labels[ENVIRONMENT_LABEL] !== entry) {
      this.logger.warn({ image }, 'passing over a prepared environment whose label does not match its entry');
      await this.discard(entry);
      return null;
    }
    await this.index.touch(entry);
    return { image, entry, ref, builtAt: labels[BUILT_LABEL] ?? info.Created };
  }
}
