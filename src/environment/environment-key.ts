import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, posix } from 'node:path';
import type { SetupCommand } from '../sandbox/environment.js';

/**
 * The manifests and lockfiles setup commands read. Their content is part of
 * the prepared environment's key: a changed lockfile means other packages,
 * so the cached environment no longer fits.
 */
export const LOCKFILE_NAMES = [
  'package.json',
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lockb',
  'requirements.txt',
  'requirements-dev.txt',
  'requirements-test.txt',
  'constraints.txt',
  'pyproject.toml',
  'setup.py',
  'setup.cfg',
  'poetry.lock',
  'uv.lock',
  'Pipfile',
  'Pipfile.lock',
  'go.mod',
  'go.sum',
  'Cargo.toml',
  'Cargo.lock',
  'Gemfile',
  'Gemfile.lock',
  'pom.xml',
  'build.gradle',
  'build.gradle.kts',
  'settings.gradle',
  'settings.gradle.kts',
  'gradle.properties',
  'composer.json',
  'composer.lock',
  'mix.lock',
  'packages.lock.json',
] as const;

const REQUIREMENTS = /^requirements[\w.-]*\.txt$/;

/**
 * sha256 of each lockfile at the workspace root and in the setup commands'
 * working folders (path → digest). Files beyond those are not looked for:
 * the key must be cheap, and setup reads its manifests where it runs.
 */
export async function lockfileDigests(
  dir: string,
  setup: readonly SetupCommand[],
): Promise<Record<string, string>> {
  const folders = new Set(['.', ...setup.map((step) => posix.normalize(step.cwd ?? '.'))]);
  const digests: Record<string, string> = {};
  for (const folder of [...folders].sort()) {
    if (folder.startsWith('..')) continue;
    for (const name of await candidateNames(join(dir, folder))) {
      const path = posix.join(folder, name);
      try {
        const content = await readFile(join(dir, path));
        digests[path] = createHash('sha256').update(content).digest('hex');
      } catch {
        // Not there (or a folder): nothing to key on.
      }
    }
  }
  return digests;
}

async function candidateNames(folder: string): Promise<string[]> {
  const names = await readdir(folder).catch(() => [] as string[]);
  const wanted = new Set<string>(LOCKFILE_NAMES);
  const found: string[] = [];
  for (const name of names.sort()) {
    if (!wanted.has(name) && !REQUIREMENTS.test(name)) continue;
    if ((await stat(join(folder, name)).catch(() => null))?.isFile()) found.push(name);
  }
  return found;
}

/**
 * The layout of a prepared image; a change to it (where setup's files are
 * kept) makes every earlier prepared image unusable, so it is in the key.
 */
const LAYOUT = 2;

/** The prepared environment's key: the layout, base image id, the setup commands as given, and the lockfiles' content. */
export function environmentKey(input: {
  baseImageId: string;
  setup: readonly SetupCommand[];
  lockfiles: Record<string, string>;
}): string {
  const canonical = JSON.stringify({
    layout: LAYOUT,
    base: input.baseImageId,
    setup: input.setup.map((step) => ({
      command: step.command,
      cwd: step.cwd ?? '.',
      env: Object.entries(step.env ?? {}).sort(([a], [b]) => a.localeCompare(b)),
    })),
    lockfiles: Object.entries(input.lockfiles).sort(([a], [b]) => a.localeCompare(b)),
  });
  return createHash('sha256').update(canonical).digest('hex');
}
