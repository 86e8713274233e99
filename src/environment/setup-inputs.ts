import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import type { SetupCommand } from '../sandbox/environment.js';
import { globMatcher } from '../util/glob.js';
import { isManifest } from './manifest-names.js';

/** A checkout this large is keyed on what it names only; walking on would cost more than setup saves. */
const MAX_FILES = 200_000;
const MAKEFILES = ['GNUmakefile', 'makefile', 'Makefile'];
const LIFECYCLE_SCRIPTS = [
  'preinstall',
  'install',
  'postinstall',
  'preprepare',
  'prepare',
  'postprepare',
  'prepublish',
  'dependencies',
];

/**
 * The workspace files setup can read, as content digests (path → sha256):
 * the prepared environment's key is computed from these, so a change to any
 * of them prepares a new environment, and a change to anything else (the
 * sources the loop works on) still reuses the old one. What counts:
 * - every manifest, lockfile and package-manager config at any depth;
 * - every file a setup command names (`bash scripts/setup.sh`, `-r x.txt`,
 *   `make -f build.mk`), and all of a folder it names other than the root;
 * - files the manifests' lifecycle scripts name, and local path dependencies
 *   (`file:`/`link:` in package.json, `path = "…"` in Cargo and pyproject,
 *   `-e ./pkg` in requirements), with everything in them;
 * - whatever the repository lists in `sandbox.cache_key_files` (globs).
 * Links are not followed: a link's target may be outside the checkout.
 */
export async function setupInputDigests(
  dir: string,
  setup: readonly SetupCommand[],
  cacheKeyFiles: readonly string[] = [],
): Promise<Record<string, string>> {
  const files = await listFiles(dir);
  const inputs = new Set(files.filter(isManifest));
  for (const step of setup) addNamed(inputs, files, step.command, normalFolder(step.cwd ?? '.'));
  for (const path of [...inputs]) {
    const content = await readFile(join(dir, path), 'utf8').catch(() => '');
    for (const named of namedByManifest(path, content)) addNamed(inputs, files, named.text, named.folder);
  }
  const globs = cacheKeyFiles.map(hashFilesPattern);
  for (const path of files) if (globs.some((matches) => matches(path))) inputs.add(path);
  const digests: Record<string, string> = {};
  for (const path of [...inputs].sort()) {
    const content = await readFile(join(dir, path)).catch(() => null);
    if (content) digests[path] = createHash('sha256').update(content).digest('hex');
  }
  return digests;
}

/**
 * Every regular file under `dir` as workspace paths, but `.git`'s and any
 * `node_modules` (what an install makes and setup replaces, not what it
 * reads; a runner's workspace may hold tens of thousands); links are left out.
 */
async function listFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  const folders = [''];
  while (folders.length > 0 && files.length < MAX_FILES) {
    const folder = folders.pop() ?? '';
    const entries = await readdir(join(dir, folder), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = folder ? `${folder}/${entry.name}` : entry.name;
      if (entry.isDirectory() && path !== '.git' && entry.name !== 'node_modules') folders.push(path);
      else if (entry.isFile()) files.push(path);
    }
  }
  // Code-unit order, as filesAt compares.
  return files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Adds the files a command line names, read from `folder`: a path to a file,
 * or every file of a folder other than the workspace root itself (a local
 * package a command installs is copied into the environment).
 */
function addNamed(inputs: Set<string>, files: readonly string[], text: string, folder: string): void {
  for (const word of words(text)) {
    // A bare `make` reads the folder's makefile without naming it.
    if (word === 'make') for (const name of MAKEFILES) addNamed(inputs, files, name, folder);
    const path = normalFolder(posix.join(folder, word));
    if (path === '.' || path.startsWith('..')) continue;
    for (const file of filesAt(files, path)) inputs.add(file);
  }
}

/** The file at `path`, or every file under it; `files` is sorted, so both are one binary search away. */
function filesAt(files: readonly string[], path: string): string[] {
  const found: string[] = [];
  const prefix = `${path}/`;
  for (let index = firstAtLeast(files, path); index < files.length; index++) {
    const file = files[index] ?? '';
    if (file === path || file.startsWith(prefix)) found.push(file);
    else if (file > prefix) break;
  }
  return found;
}

function firstAtLeast(sorted: readonly string[], value: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((sorted[middle] ?? '') < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The words of a command line that could be paths: operators, flags and quotes taken off. */
function words(text: string): string[] {
  return text
    .split(/[\s;&|()<>=,'"`]+/)
    .map((word) => word.replace(/^(file|link|portal):/, '').replace(/^\.\/+/, ''))
    .filter((word) => word !== '' && !word.startsWith('-') && !word.includes('$') && !word.includes('://'));
}

/** What a manifest names that setup reads: lifecycle scripts' files and local path dependencies. */
function namedByManifest(path: string, content: string): { text: string; folder: string }[] {
  const folder = posix.dirname(path);
  const name = posix.basename(path);
  if (name === 'package.json') return packageJsonNames(content).map((text) => ({ text, folder }));
  if (name === 'Cargo.toml' || name === 'pyproject.toml')
    return [...content.matchAll(/\bpath\s*=\s*["']([^"']+)["']/g)].map((match) => ({
      text: match[1] ?? '',
      folder,
    }));
  if (/^requirements[\w.-]*\.txt$|^constraints[\w.-]*\.txt$/.test(name)) return [{ text: content, folder }];
  return [];
}

function packageJsonNames(content: string): string[] {
  let manifest: { scripts?: Record<string, unknown> } & Record<string, unknown>;
  try {
    manifest = JSON.parse(content);
  } catch {
    return [];
  }
  const scripts = LIFECYCLE_SCRIPTS.map((script) => manifest.scripts?.[script]).filter(
    (script): script is string => typeof script === 'string',
  );
  const kinds = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'];
  const local = kinds
    .flatMap((kind) => Object.values((manifest[kind] as Record<string, unknown> | undefined) ?? {}))
    .filter((spec): spec is string => typeof spec === 'string' && /^(file|link|portal):/.test(spec));
  return [...scripts, ...local];
}

/** hashFiles' globs: `**` across folders (none as well), `*` within one, relative to the root. */
function hashFilesPattern(glob: string): (path: string) => boolean {
  const trimmed = glob.replace(/^\.\//, '');
  const matcher = globMatcher(trimmed);
  const atRoot = trimmed.startsWith('**/') ? globMatcher(trimmed.slice(3)) : matcher;
  return (path) => matcher.test(path) || atRoot.test(path);
}

function normalFolder(folder: string): string {
  const normal = posix.normalize(folder).replace(/\/+$/, '');
  return normal === '' ? '.' : normal;
}
