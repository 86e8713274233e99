import { posix } from 'node:path';

/**
 * The manifests, lockfiles and package-manager configuration setup commands
 * read, wherever they are in the checkout: a change to any of them can change
 * what setup installs, so each is part of the prepared environment's key.
 */
const MANIFEST_NAMES = new Set([
  'package.json',
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'pnpm-workspace.yaml',
  'bun.lockb',
  'bun.lock',
  'bunfig.toml',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pnpmfile.cjs',
  '.nvmrc',
  '.node-version',
  '.tool-versions',
  '.python-version',
  'pyproject.toml',
  'setup.py',
  'setup.cfg',
  'MANIFEST.in',
  'poetry.lock',
  'poetry.toml',
  'uv.lock',
  'uv.toml',
  'pdm.lock',
  'Pipfile',
  'Pipfile.lock',
  'pip.conf',
  'pip.ini',
  'environment.yml',
  'go.mod',
  'go.sum',
  'go.work',
  'go.work.sum',
  'Cargo.toml',
  'Cargo.lock',
  'rust-toolchain',
  'rust-toolchain.toml',
  'Gemfile',
  'Gemfile.lock',
  '.ruby-version',
  'pom.xml',
  'build.gradle',
  'build.gradle.kts',
  'settings.gradle',
  'settings.gradle.kts',
  'gradle.properties',
  'gradle-wrapper.properties',
  'composer.json',
  'composer.lock',
  'mix.exs',
  'mix.lock',
  'packages.lock.json',
  'global.json',
  'nuget.config',
  'NuGet.Config',
  'Directory.Packages.props',
  'Directory.Build.props',
]);

/** Names that count only inside their tool's folder (`.cargo/config.toml`, `.bundle/config`). */
const IN_FOLDER = [
  /(^|\/)\.cargo\/config(\.toml)?$/,
  /(^|\/)\.bundle\/config$/,
  /(^|\/)\.mvn\/(maven\.config|jvm\.config|wrapper\/maven-wrapper\.properties)$/,
  /(^|\/)\.yarn\/(releases|plugins|patches)\//,
  /(^|\/)\.pip\/pip\.conf$/,
  /(^|\/)\.config\/pip\/pip\.conf$/,
];

const REQUIREMENTS = /^(requirements|constraints)[\w.-]*\.(txt|in)$/;

/** Whether setup reads this workspace path as a manifest, lockfile or package-manager setting. */
export function isManifest(path: string): boolean {
  const name = posix.basename(path);
  if (MANIFEST_NAMES.has(name) || REQUIREMENTS.test(name) || name.endsWith('.csproj')) return true;
  return IN_FOLDER.some((pattern) => pattern.test(path));
}
