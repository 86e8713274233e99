/**
 * Images chosen for a toolchain: `node:20` → an image, `node` → a template
 * whose `{version}` is filled in. The operator's table
 * (SELFDEBUG_TOOLCHAIN_IMAGES, parsed in config/toolchain-images-setting.ts).
 */
export type ToolchainImageMap = Readonly<Record<string, string>>;

interface ToolchainRow {
  toolchain: string;
  input: string;
  template: string;
  defaultVersion: string;
}

/**
 * The official image for each setup action of GitHub Actions, with the
 * toolchain it installs, the input that names the version and the version
 * used when none is given. `{version}` in a template is replaced.
 */
const TOOLCHAIN_IMAGES: Record<string, ToolchainRow> = {
  'actions/setup-node': {
    toolchain: 'node',
    input: 'node-version',
    template: 'node:{version}-bookworm',
    defaultVersion: '22',
  },
  'actions/setup-python': {
    toolchain: 'python',
    input: 'python-version',
    template: 'python:{version}-bookworm',
    defaultVersion: '3.12',
  },
  'actions/setup-go': {
    toolchain: 'go',
    input: 'go-version',
    template: 'golang:{version}-bookworm',
    defaultVersion: '1.23',
  },
  'actions/setup-java': {
    toolchain: 'java',
    input: 'java-version',
    template: 'eclipse-temurin:{version}-jdk',
    defaultVersion: '21',
  },
  'actions/setup-dotnet': {
    toolchain: 'dotnet',
    input: 'dotnet-version',
    template: 'mcr.microsoft.com/dotnet/sdk:{version}',
    defaultVersion: '8.0',
  },
  'ruby/setup-ruby': {
    toolchain: 'ruby',
    input: 'ruby-version',
    template: 'ruby:{version}-bookworm',
    defaultVersion: '3.3',
  },
  'dtolnay/rust-toolchain': {
    toolchain: 'rust',
    input: 'toolchain',
    template: 'rust:{version}-bookworm',
    defaultVersion: '1',
  },
};

/** The toolchain names an operator's table may use as keys. */
export const TOOLCHAINS: readonly string[] = Object.values(TOOLCHAIN_IMAGES).map((row) => row.toolchain);

/**
 * A version as an image tag: `20.x` → `20`, `lts/*`, ranges and files
 * (`go-version-file`) → the default, with the reason saying so.
 */
export function toolchainImage(
  action: string,
  inputs: Record<string, string>,
  overrides: ToolchainImageMap = {},
): { image: string; reason: string } | null {
  const row = TOOLCHAIN_IMAGES[action];
  if (!row) return null;
  const asked = (inputs[row.input] ?? '').split('\n')[0]!.trim();
  const version = plainVersion(row.toolchain, asked);
  const picked = pickImage(row.toolchain, version, overrides);
  const why =
    asked === ''
      ? 'no version given, so the default'
      : version !== null
        ? `${row.input} ${asked}`
        : `${row.input} ${asked} is not a plain version, so the default`;
  return { image: picked.image, reason: `${action} with ${why} → ${picked.image}${picked.from}` };
}

/** `20.x`, `v20` → `20`; `stable` (rust) → `1`; anything else (ranges, `lts/*`) → null. */
export function plainVersion(toolchain: string, asked: string): string | null {
  const cleaned = asked.replace(/(\.x)+$/i, '').replace(/^v/, '');
  if (/^\d+(\.\d+){0,2}$/.test(cleaned)) return cleaned;
  if (toolchain === 'rust' && cleaned === 'stable') return '1';
  return null;
}

/**
 * The image for a toolchain at a version (null: the default version). The
 * operator's table is read most specific first (`node:20.11.1`, `node:20.11`,
 * `node:20`, then the template `node`), then the built-in template.
 */
export function pickImage(
  toolchain: string,
  version: string | null,
  overrides: ToolchainImageMap = {},
): { image: string; from: string } {
  const row = Object.values(TOOLCHAIN_IMAGES).find((entry) => entry.toolchain === toolchain);
  if (!row) throw new Error(`no toolchain named ${toolchain}`);
  const wanted = version ?? row.defaultVersion;
  const parts = wanted.split('.');
  for (let length = parts.length; length > 0; length--) {
    const key = `${toolchain}:${parts.slice(0, length).join('.')}`;
    const image = overrides[key];
    if (image !== undefined)
      return { image: fill(image, wanted), from: ` (SELFDEBUG_TOOLCHAIN_IMAGES ${key})` };
  }
  const template = overrides[toolchain];
  if (template !== undefined)
    return { image: fill(template, wanted), from: ` (SELFDEBUG_TOOLCHAIN_IMAGES ${toolchain})` };
  return { image: fill(row.template, wanted), from: '' };
}

function fill(template: string, version: string): string {
  return template.replaceAll('{version}', version);
}

/** Whether the operator's table names this toolchain at all (any version). */
export function isMapped(toolchain: string, overrides: ToolchainImageMap): boolean {
  return Object.keys(overrides).some((key) => key === toolchain || key.startsWith(`${toolchain}:`));
}
