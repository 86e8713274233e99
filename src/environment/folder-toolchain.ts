import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DerivedEnvironment } from './derive-environment.js';
import { isMapped, pickImage, plainVersion, type ToolchainImageMap } from './toolchain-images.js';

/** A toolchain file of a folder, and the version it pins (null: it names the toolchain only). */
interface FolderClue {
  file: string;
  toolchain: string;
  version: (text: string) => string | null;
}

/** The first match of `pattern`'s group, as a plain version (`>=20.18.1` → `20`, `"3.11"` → `3.11`). */
const versionBy =
  (toolchain: string, pattern: RegExp, keep = 1) =>
  (text: string): string | null => {
    const found = pattern.exec(text)?.[1];
    if (found === undefined) return null;
    const parts = /\d+(\.\d+)*/.exec(found)?.[0]?.split('.').slice(0, keep) ?? [];
    return plainVersion(toolchain, parts.join('.'));
  };

/** In the order they are tried; the first file present decides. */
const CLUES: readonly FolderClue[] = [
  {
    file: 'package.json',
    toolchain: 'node',
    version: (text) => versionBy('node', /(.*)/)(enginesNode(text)),
  },
  { file: '.nvmrc', toolchain: 'node', version: versionBy('node', /^\s*v?(\d[\d.]*)/) },
  {
    file: 'pyproject.toml',
    toolchain: 'python',
    version: versionBy('python', /requires-python\s*=\s*["']([^"']*)["']/, 2),
  },
  { file: '.python-version', toolchain: 'python', version: versionBy('python', /^\s*(\d[\d.]*)/, 2) },
  { file: 'requirements.txt', toolchain: 'python', version: () => null },
  { file: 'go.mod', toolchain: 'go', version: versionBy('go', /^go\s+(\d[\d.]*)/m, 2) },
  {
    file: 'pom.xml',
    toolchain: 'java',
    version: versionBy('java', /<(?:java\.version|maven\.compiler\.release)>\s*(\d+)/),
  },
  {
    file: 'build.gradle',
    toolchain: 'java',
    version: versionBy('java', /languageVersion\s*=?\s*JavaLanguageVersion\.of\((\d+)\)/),
  },
  {
    file: 'build.gradle.kts',
    toolchain: 'java',
    version: versionBy('java', /JavaLanguageVersion\.of\((\d+)\)/),
  },
  { file: 'Gemfile', toolchain: 'ruby', version: versionBy('ruby', /^\s*ruby\s+["']([^"']*)["']/m, 2) },
  { file: '.ruby-version', toolchain: 'ruby', version: versionBy('ruby', /^\s*(?:ruby-)?(\d[\d.]*)/, 2) },
  { file: 'Cargo.toml', toolchain: 'rust', version: versionBy('rust', /rust-version\s*=\s*"([^"]*)"/, 2) },
];

/**
 * The toolchain a folder asks for, for `selfdebug fix` with no image given:
 * package.json's `engines.node` or .nvmrc, pyproject.toml's
 * `requires-python`, go.mod's `go`, pom.xml, build.gradle, Gemfile, Cargo.toml.
 * The image comes from the same table as the App's derivation. A toolchain
 * named without a version, and not in the operator's table, keeps the default
 * image (which holds the common toolchains): no image is pulled for nothing.
 */
export async function folderToolchain(
  dir: string,
  images: ToolchainImageMap = {},
): Promise<DerivedEnvironment | null> {
  for (const clue of CLUES) {
    const text = await readFile(join(dir, clue.file), 'utf8').catch(() => null);
    if (text === null) continue;
    const version = clue.version(text);
    if (version === null && !isMapped(clue.toolchain, images)) {
      if (clue.file === 'package.json') continue;
      return fromFolder(null, `${clue.file} names ${clue.toolchain} without a version: the default image`);
    }
    const picked = pickImage(clue.toolchain, version, images);
    const asked = version === null ? 'no version, so the default' : `${clue.toolchain} ${version}`;
    return fromFolder(picked.image, `${clue.file} asks for ${asked} → ${picked.image}${picked.from}`);
  }
  return null;
}

/** package.json's `engines.node`, or '' when it has none or is not JSON. */
function enginesNode(text: string): string {
  try {
    const engines = (JSON.parse(text) as { engines?: { node?: unknown } }).engines;
    return typeof engines?.node === 'string' ? engines.node : '';
  } catch {
    return '';
  }
}

function fromFolder(image: string | null, imageReason: string): DerivedEnvironment {
  return { origin: "the folder's toolchain files", image, imageReason, setup: [], services: [], skipped: [] };
}
