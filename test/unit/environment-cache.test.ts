import type Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import {
  ENVIRONMENT_LABEL,
  EnvironmentCache,
  STORE_LABEL,
} from '../../src/adapters/docker/environment-cache.js';
import { appScope, entryKey } from '../../src/environment/cache-scope.js';
import { EnvironmentSnapshotError } from '../../src/errors/index.js';
import { silentLogger } from '../../src/util/logger.js';
import { useTempDirs } from '../helpers/temp-dir.js';

interface StandInImage {
  entry: string;
  store: string;
  sizeGb?: number;
  created?: number;
}

/**
 * The engine as the cache sees it: images listed by label, inspected by tag,
 * removals recorded. Eviction is decided from these alone, so a stand-in
 * shows the policy without other tests' images on a shared engine getting in
 * the way (test/security/environment-cache-attacks.test.ts uses the real one).
 */
function engineWith(images: StandInImage[]) {
  const removed: string[] = [];
  const labelsOf = (image: StandInImage) => ({
    [ENVIRONMENT_LABEL]: image.entry,
    [STORE_LABEL]: image.store,
  });
  const docker = {
    listImages: async (options: { filters: { label: string[] } }) =>
      images
        .filter((image) =>
          options.filters.label.every((filter) => filter === `${STORE_LABEL}=${image.store}`),
        )
        .map((image) => ({
          Labels: labelsOf(image),
          Size: (image.sizeGb ?? 1) * 1e9,
          Created: image.created ?? 100,
        })),
    getImage: (name: string) => {
      const image = images.find((entry) => EnvironmentCache.tagOf(entry.entry) === name);
      return {
        remove: async () => {
          removed.push(name);
        },
        inspect: async () => {
          if (!image) throw Object.assign(new Error('no such image'), { statusCode: 404 });
          return { Created: '2026-11-01T00:00:00Z', Config: { Labels: labelsOf(image) } };
        },
      };
    },
  };
  return { docker: docker as unknown as Docker, removed };
}

const limits = { entries: 10, repositoryEntries: 10, gigabytes: 100 };
const feature = appScope({ installationId: 1, repositoryId: 7, branch: 'feature', defaultBranch: 'main' });
const main = appScope({ installationId: 1, repositoryId: 7, branch: 'main', defaultBranch: 'main' });

describe('EnvironmentCache', () => {
  const tempDir = useTempDirs();

  it('keeps its store id in its folder, so a restarted process still knows its own images', async () => {
    const dir = await tempDir();
    const first = new EnvironmentCache(engineWith([]).docker, { ...limits, dir }, silentLogger);
    const entry = 'a'.repeat(64);
    const store = await storeIdOf(first, dir);
    const mine = engineWith([
      { entry, store, created: 1 },
      { entry: 'c'.repeat(64), store, created: 2 },
    ]);
    const again = new EnvironmentCache(mine.docker, { ...limits, entries: 1, dir }, silentLogger);
    expect(await again.evict('b'.repeat(64))).toEqual([entry]);
  });

  it('evicts only the images its own store made', async () => {
    const dir = await tempDir();
    const cache = new EnvironmentCache(engineWith([]).docker, { ...limits, entries: 1, dir }, silentLogger);
    const store = await storeIdOf(cache, dir);
    const { docker, removed } = engineWith([
      { entry: 'a'.repeat(64), store: 'another-store', created: 1 },
      { entry: 'b'.repeat(64), store, created: 2 },
      { entry: 'c'.repeat(64), store, created: 3 },
    ]);
    const sameStore = new EnvironmentCache(docker, { ...limits, entries: 1, dir }, silentLogger);
    expect(await sameStore.evict('c'.repeat(64))).toEqual(['b'.repeat(64)]);
    expect(removed).toEqual([EnvironmentCache.tagOf('b'.repeat(64))]);
  });

  it('reads the job’s own ref first, then the default branch’s, and nothing without a scope', async () => {
    const key = 'k'.repeat(64);
    const onMain = entryKey(main, main.ref, key);
    const { docker } = engineWith([{ entry: onMain, store: 's' }]);
    const cache = new EnvironmentCache(docker, limits, silentLogger);
    expect((await cache.lookup(feature, key))?.ref).toBe('refs/heads/main');
    expect(await cache.lookup(undefined, key)).toBeNull();
    const onFeature = entryKey(feature, feature.ref, key);
    const both = new EnvironmentCache(
      engineWith([
        { entry: onMain, store: 's' },
        { entry: onFeature, store: 's' },
      ]).docker,
      limits,
      silentLogger,
    );
    expect((await both.lookup(feature, key))?.entry).toBe(onFeature);
  });

  it('keeps nothing when the operator sets no entries', async () => {
    const key = 'k'.repeat(64);
    const { docker } = engineWith([{ entry: entryKey(main, main.ref, key), store: 's' }]);
    const cache = new EnvironmentCache(docker, { ...limits, entries: 0 }, silentLogger);
    expect(await cache.lookup(main, key)).toBeNull();
  });

  it('says what to do when the engine’s disk is full while saving', async () => {
    const { docker } = engineWith([]);
    const cache = new EnvironmentCache(docker, limits, silentLogger);
    const container = {
      commit: async () => {
        throw Object.assign(new Error('(HTTP code 500) server error'), {
          statusCode: 500,
          json: { message: 'write /var/lib/docker/tmp/layer.tar: no space left on device' },
        });
      },
    } as unknown as Docker.Container;
    const error = await cache
      .save(container, main, 'd'.repeat(64), '1000:1000')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EnvironmentSnapshotError);
    expect((error as Error).message).toContain('no space left on device');
    expect((error as Error).message).toContain('SELFDEBUG_ENVIRONMENT_CACHE_GB');
    expect((error as EnvironmentSnapshotError).retryable).toBe(true);
  });
});

/** The id a store wrote into its folder (made on first use). */
async function storeIdOf(cache: EnvironmentCache, dir: string): Promise<string> {
  await cache.evict('none');
  const { readFile } = await import('node:fs/promises');
  return (await readFile(`${dir}/store-id`, 'utf8')).trim();
}
