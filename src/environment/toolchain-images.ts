/**
 * The official image for each setup action of GitHub Actions, with the
 * input that names the version and the version used when none is given.
 * `{version}` in a template is replaced; operators override a row with the
 * same action name (SELFDEBUG_TOOLCHAIN_IMAGES, a JSON object).
 */
export const TOOLCHAIN_IMAGES: Record<string, { input: string; template: string; defaultVersion: string }> = {
  'actions/setup-node': { input: 'node-version', template: 'node:{version}-bookworm', defaultVersion: '22' },
  'actions/setup-python': {
    input: 'python-version',
    template: 'python:{version}-bookworm',
    defaultVersion: '3.12',
  },
  'actions/setup-go': { input: 'go-version', template: 'golang:{version}-bookworm', defaultVersion: '1.23' },
  'actions/setup-java': {
    input: 'java-version',
    template: 'eclipse-temurin:{version}-jdk',
    defaultVersion: '21',
  },
  'actions/setup-dotnet': {
    input: 'dotnet-version',
    template: 'mcr.microsoft.com/dotnet/sdk:{version}',
    defaultVersion: '8.0',
  },
  'ruby/setup-ruby': { input: 'ruby-version', template: 'ruby:{version}-bookworm', defaultVersion: '3.3' },
  'dtolnay/rust-toolchain': { input: 'toolchain', template: 'rust:{version}-bookworm', defaultVersion: '1' },
};

/**
 * A version as an image tag: `20.x` → `20`, `lts/*`, ranges and files
 * (`go-version-file`) → the default, with the reason saying so.
 */
export function toolchainImage(
  action: string,
  inputs: Record<string, string>,
  overrides: Record<string, string> = {},
): { image: string; reason: string } | null {
  const row = TOOLCHAIN_IMAGES[action];
  if (!row) return null;
  const template = overrides[action] ?? row.template;
  const asked = (inputs[row.input] ?? '').split('\n')[0]!.trim();
  const cleaned = asked.replace(/(\.x)+$/i, '').replace(/^v/, '');
  const usable =
    /^\d+(\.\d+){0,2}$/.test(cleaned) ||
    (action === 'dtolnay/rust-toolchain' && /^(stable|1\.\d+)$/.test(cleaned));
  const version = usable ? (cleaned === 'stable' ? '1' : cleaned) : row.defaultVersion;
  const image = template.replace('{version}', version);
  const why =
    asked === ''
      ? 'no version given, so the default'
      : usable
        ? `${row.input} ${asked}`
        : `${row.input} ${asked} is not a plain version, so the default`;
  return { image, reason: `${action} with ${why} → ${image}` };
}
