import { describe, expect, it } from 'vitest';
import { type CacheEntry, entriesToEvict } from '../../src/environment/cache-eviction.js';

const entry = (name: string, repository: string, lastUsed: number, gigabytes = 1): CacheEntry => ({
  entry: name,
  repository,
  bytes: gigabytes * 1e9,
  lastUsed,
});

describe('entriesToEvict', () => {
  it('keeps each repository within its own cap, least recently used first', () => {
    const entries = [entry('a1', 'a', 1), entry('a2', 'a', 2), entry('a3', 'a', 3), entry('b1', 'b', 0)];
    // b's only entry is the oldest of all, yet a's third goes: a busy repository cannot push b out.
    expect(entriesToEvict(entries, { entries: 10, repositoryEntries: 2, gigabytes: 100 }, 'none')).toEqual([
      'a1',
    ]);
  });

  it('then keeps the whole store within the global count and size', () => {
    const entries = [entry('a', 'a', 1, 3), entry('b', 'b', 2, 3), entry('c', 'c', 3, 3)];
    expect(entriesToEvict(entries, { entries: 10, repositoryEntries: 5, gigabytes: 7 }, 'none')).toEqual([
      'a',
    ]);
    expect(entriesToEvict(entries, { entries: 1, repositoryEntries: 5, gigabytes: 100 }, 'none')).toEqual([
      'b',
      'a',
    ]);
  });

  it('never evicts the entry in use', () => {
    const entries = [entry('a1', 'a', 1), entry('a2', 'a', 2)];
    expect(entriesToEvict(entries, { entries: 1, repositoryEntries: 1, gigabytes: 100 }, 'a1')).toEqual([
      'a2',
    ]);
  });
});
