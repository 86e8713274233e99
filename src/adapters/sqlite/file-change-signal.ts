import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname } from 'node:path';

/**
 * Calls `onChange` soon after another process writes the SQLite file at
 * `path` (its `-wal` file, in WAL mode), so a worker in one process picks up
 * a job the App enqueued in another without waiting for its next poll. The
 * folder is watched rather than the file, since SQLite deletes and recreates
 * `-wal`. Events come in bursts (every commit, every lease renewal): they
 * are folded into one call per `foldMs`. Where the platform cannot watch,
 * this does nothing and polling alone finds the work.
 */
export function watchFileChanges(path: string, onChange: () => void, foldMs = 5): () => void {
  if (path === ':memory:' || path === '') return () => {};
  const names = new Set([basename(path), `${basename(path)}-wal`]);
  let timer: ReturnType<typeof setTimeout> | null = null;
  let watcher: FSWatcher;
  try {
    watcher = watch(dirname(path), { persistent: false }, (_event, name) => {
      if (name !== null && !names.has(String(name))) return;
      if (timer !== null) return;
      timer = setTimeout(() => {
        timer = null;
        onChange();
      }, foldMs);
      timer.unref();
    });
    watcher.on('error', () => watcher.close());
  } catch {
    return () => {};
  }
  return () => {
    if (timer !== null) clearTimeout(timer);
    watcher.close();
  };
}
