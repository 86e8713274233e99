/** One prepared environment as eviction sees it. */
export interface CacheEntry {
  entry: string;
  repository: string;
  bytes: number;
  lastUsed: number;
}

export interface EvictionLimits {
  entries: number;
  repositoryEntries: number;
  gigabytes: number;
}

/**
 * Which entries go, least recently used first: past the repository's own cap
 * first (one busy repository cannot push every other one out), then past the
 * global count and size. `keep` (the entry in use) always stays.
 */
export function entriesToEvict(
  entries: readonly CacheEntry[],
  limits: EvictionLimits,
  keep: string,
): string[] {
  // The entry in use counts first: it takes a place, and the others compete for what is left.
  const rank = (entry: CacheEntry) => (entry.entry === keep ? Number.POSITIVE_INFINITY : entry.lastUsed);
  const byUse = [...entries].sort((a, b) => rank(b) - rank(a));
  const perRepository = new Map<string, number>();
  const kept: CacheEntry[] = [];
  const removed: string[] = [];
  for (const entry of byUse) {
    const count = (perRepository.get(entry.repository) ?? 0) + 1;
    if (entry.entry !== keep && count > limits.repositoryEntries) {
      removed.push(entry.entry);
      continue;
    }
    perRepository.set(entry.repository, count);
    kept.push(entry);
  }
  const maxBytes = limits.gigabytes * 1e9;
  let count = 0;
  let bytes = 0;
  for (const entry of kept) {
    count += 1;
    bytes += entry.bytes;
    if (entry.entry === keep || (count <= limits.entries && bytes <= maxBytes)) continue;
    removed.push(entry.entry);
    count -= 1;
    bytes -= entry.bytes;
  }
  return removed;
}
