import type { Context } from 'probot';
import type { RepoConfigResult } from './dependencies.js';

export interface CachedConfigLoader {
  (context: Context): Promise<RepoConfigResult>;
  /** Drops what is cached for one repository, or for every repository of `owner` when `repo` is left out. */
  forget(owner: string, repo?: string): void;
}

export interface ConfigCacheOptions {
  ttlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

/**
 * Remembers each repository's handler configuration for a minute, so a burst
 * of deliveries costs two config reads, not two per delivery (they were most
 * of a handler's GitHub calls). A push that changes `.github/selfdebug.yml`,
 * or the organisation's `.github` repository, forgets it at once
 * (handlePush). Concurrent deliveries share one read. Errors are not kept.
 * The job itself reads the file afresh at the commit it runs.
 */
export function cachedRepoConfig(
  load: (context: Context) => Promise<RepoConfigResult>,
  options: ConfigCacheOptions = {},
): CachedConfigLoader {
  const ttlMs = options.ttlMs ?? 60_000;
  const maxEntries = options.maxEntries ?? 1000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, { at: number; result: Promise<RepoConfigResult> }>();

  const loader = (context: Context): Promise<RepoConfigResult> => {
    const { owner, repo } = context.repo();
    const key = keyOf(owner, repo);
    const cached = entries.get(key);
    if (cached && now() - cached.at < ttlMs) return cached.result;
    entries.delete(key);
    const result = load(context);
    entries.set(key, { at: now(), result });
    result.catch(() => {
      if (entries.get(key)?.result === result) entries.delete(key);
    });
    // Map order is insertion order: the first key is the oldest entry.
    while (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    return result;
  };
  loader.forget = (owner: string, repo?: string) => {
    if (repo !== undefined) {
      entries.delete(keyOf(owner, repo));
      return;
    }
    const prefix = `${owner.toLowerCase()}/`;
    for (const key of [...entries.keys()]) if (key.startsWith(prefix)) entries.delete(key);
  };
  return loader;
}

const keyOf = (owner: string, repo: string) => `${owner}/${repo}`.toLowerCase();
