import type Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_LABEL, EnvironmentCache } from '../../src/adapters/docker/environment-cache.js';
import { EnvironmentSnapshotError } from '../../src/errors/index.js';
import { silentLogger } from '../../src/util/logger.js';
import { useTempDirs } from '../helpers/temp-dir.js';

/**
 * The engine as the cache sees it: images listed with their labels, sizes
 * and creation times, and removals recorded. Eviction is decided from these
 * alone, so a stand-in shows the policy without other tests' images on a
 * shared engine getting in the way.
 */
function engineWith(images: { key: string; sizeGb: number; created: number }[]) {
  const removed: string[] = [];
  const docker = {
    listImages: async () =>
      images.map((image) => ({
        Id: `sha256:${image.key}`,
        Labels: { [ENVIRONMENT_LABEL]: image.key },
        Size: image.sizeGb * 1e9,
        Created: image.created,
      })),
    getImage: (name: string) => ({
      remove: async () => {
        removed.push(name);
      },
      inspect: async () => {
        const image = images.find((entry) => EnvironmentCache.tagOf(entry.key) === name);
        if (!image) throw Object.assign(new Error('no such image'), { statusCode: 404 });
        return {
          Created: new Date(image.created * 1000).toISOString(),
          Config: { Labels: { [ENVIRONMENT_LABEL]: image.key } },
        };
      },
    }),
  };
  return { docker: docker as unknown as Docker, removed };
}

describe('EnvironmentCache', () => {
  const tempDir = useTempDirs();

  it('evicts the least recently used entries past the count, never the one in use', async () => {
    const { docker, removed } = engineWith([
      { key: 'a'.repeat(64), sizeGb: 1, created: 100 },
      { key: 'b'.repeat(64), sizeGb: 1, created: 200 },
      { key: 'c'.repeat(64), sizeGb: 1, created: 300 },
    ]);
    const cache = new EnvironmentCache(
      docker,
      { entries: 2, gigabytes: 100, dir: await tempDir() },
      silentLogger,
    );
    // "a" is the oldest build but was used last: "b" is the one to go.
    await cache.lookup('a'.repeat(64));
    expect(await cache.evict('c'.repeat(64))).toEqual(['b'.repeat(64)]);
    expect(removed).toEqual([EnvironmentCache.tagOf('b'.repeat(64))]);
  });

  it('evicts by size too, oldest use first', async () => {
    const { docker } = engineWith([
      { key: 'a'.repeat(64), sizeGb: 3, created: 100 },
      { key: 'b'.repeat(64), sizeGb: 3, created: 200 },
      { key: 'c'.repeat(64), sizeGb: 3, created: 300 },
    ]);
    const cache = new EnvironmentCache(docker, { entries: 10, gigabytes: 7 }, silentLogger);
    expect(await cache.evict('c'.repeat(64))).toEqual(['a'.repeat(64)]);
  });

  it('keeps nothing when the operator sets no entries', async () => {
    const { docker } = engineWith([{ key: 'a'.repeat(64), sizeGb: 1, created: 100 }]);
    const cache = new EnvironmentCache(docker, { entries: 0, gigabytes: 10 }, silentLogger);
    expect(await cache.lookup('a'.repeat(64))).toBeNull();
  });

  it('says what to do when the engine’s disk is full while saving', async () => {
    const { docker } = engineWith([]);
    const cache = new EnvironmentCache(docker, { entries: 5, gigabytes: 10 }, silentLogger);
    const container = {
      commit: async () => {
        throw Object.assign(new Error('(HTTP code 500) server error'), {
          statusCode: 500,
          json: { message: 'write /var/lib/docker/tmp/layer.tar: no space left on device' },
        });
      },
    } as unknown as Docker.Container;
    const error = await cache.save(container, 'd'.repeat(64), '1000:1000').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EnvironmentSnapshotError);
    expect((error as Error).message).toContain('no space left on device');
    expect((error as Error).message).toContain('SELFDEBUG_ENVIRONMENT_CACHE_GB');
    expect((error as EnvironmentSnapshotError).retryable).toBe(true);
  });
});
