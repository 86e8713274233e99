import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setupInputDigests } from '../src/environment/setup-inputs.js';
import { ms } from './stats.js';

export interface KeyTiming {
  folder: string;
  files: number;
  inputs: number;
  inputsMs: number;
  wholeTreeMs: number;
}

/**
 * The two keys docs/environments.md weighs, timed on one real checkout (this
 * repository, its node_modules included, as a runner's workspace may be):
 * the computed set of setup's inputs, which the App uses, and a digest of
 * every file, the alternative.
 */
export async function measureKeys(folder: string): Promise<KeyTiming> {
  let started = performance.now();
  const inputs = await setupInputDigests(folder, [{ command: 'npm ci' }]);
  const inputsMs = performance.now() - started;
  started = performance.now();
  const files = await hashTree(folder);
  return {
    folder,
    files,
    inputs: Object.keys(inputs).length,
    inputsMs,
    wholeTreeMs: performance.now() - started,
  };
}

async function hashTree(root: string): Promise<number> {
  const hash = createHash('sha256');
  const folders = [''];
  let files = 0;
  while (folders.length > 0) {
    const folder = folders.pop() ?? '';
    for (const entry of await readdir(join(root, folder), { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory() && path !== '.git') folders.push(path);
      else if (entry.isFile()) {
        hash.update(path).update(await readFile(join(root, path)));
        files += 1;
      }
    }
  }
  hash.digest('hex');
  return files;
}

/** Whether a change to source files only still reuses the prepared environment, and why. */
export function sourceOnlyVerdict(cachedRuns: number, keying: KeyTiming): string {
  return [
    `A change to source files only still hits: ${cachedRuns > 0 ? 'yes' : 'NOT shown (no cached run)'}. Every cached ` +
      `run above has an \`app.py\` the cold run before it did not have (${cachedRuns} of ${cachedRuns} reused the ` +
      'environment), because the key is the computed set of setup’s inputs (manifests, lockfiles and package-manager ' +
      'config at any depth, files the setup commands and lifecycle scripts name, path dependencies, ' +
      '`sandbox.cache_key_files`), not the whole tree: a digest of every tracked file would change with each commit ' +
      'and a fix-and-retry loop would never hit.',
    `Computing the key on this repository’s checkout (${keying.files} files with node_modules; ${keying.inputs} of ` +
      `them are setup inputs) takes ${ms(keying.inputsMs)}; hashing the whole tree would take ${ms(keying.wholeTreeMs)}.`,
  ].join(' ');
}
