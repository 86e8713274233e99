import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { environmentKey } from '../../src/environment/environment-key.js';
import { setupInputDigests } from '../../src/environment/setup-inputs.js';
import type { SetupCommand } from '../../src/sandbox/environment.js';
import { useTempDirs } from '../helpers/temp-dir.js';

/**
 * The prepared environment's key covers every workspace file setup can read
 * (SECURITY.md, "The prepared-environment cache"): for each kind of input, a
 * checkout is keyed, the one file is changed, and the key must change; a
 * change to a source file only must not change it (that is the cache's point).
 */
const PROJECT: Record<string, string> = {
  'package.json': JSON.stringify({
    scripts: { postinstall: 'node scripts/postinstall.js', test: 'node test.js' },
    dependencies: { local: 'file:./vendor/local', left: 'link:../outside' },
    workspaces: ['packages/*'],
  }),
  'package-lock.json': '{}',
  'scripts/postinstall.js': 'console.log("post")',
  'vendor/local/index.js': 'module.exports = 1',
  'vendor/local/package.json': '{"name":"local"}',
  'packages/web/package.json': '{"name":"web"}',
  'services/api/requirements.txt': '-e ./libs/shared\n-r extra.txt\n',
  'services/api/extra.txt': 'attrs\n',
  'services/api/libs/shared/shared.py': 'X = 1',
  'rust/Cargo.toml': '[dependencies]\nhelper = { path = "../crates/helper" }\n',
  'crates/helper/src/lib.rs': 'pub fn f() {}',
  '.npmrc': 'registry=http://127.0.0.1:1/',
  '.yarnrc.yml': 'nodeLinker: node-modules',
  '.cargo/config.toml': '[net]\noffline = true',
  'pip.conf': '[global]\n',
  'scripts/setup.sh': 'pip install -r requirements.txt',
  'install.sh': 'echo install',
  'build.mk': 'all:',
  'native/Makefile': 'all:',
  'tools/generate.py': 'print(1)',
  'src/app.py': 'print("the code the loop fixes")',
  'README.md': 'hello',
};

const SETUP: SetupCommand[] = [
  { command: 'bash scripts/setup.sh && ./install.sh' },
  { command: 'make -f build.mk' },
  { command: 'make', cwd: 'native' },
  { command: 'pip install -r requirements.txt', cwd: 'services/api' },
];

describe('the prepared environment’s key', () => {
  const tempDir = useTempDirs();

  async function keyOf(changed?: string, setup = SETUP): Promise<string> {
    const dir = await tempDir();
    for (const [path, content] of Object.entries(PROJECT)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), path === changed ? `${content}\n// changed` : content);
    }
    const lockfiles = await setupInputDigests(dir, setup, ['tools/**']);
    return environmentKey({ baseImageId: 'sha256:base', setup, lockfiles });
  }

  const inputs: [string, string][] = [
    ['a lockfile', 'package-lock.json'],
    ['a workspace package’s manifest', 'packages/web/package.json'],
    ['a requirements file in the folder a step enters', 'services/api/requirements.txt'],
    ['a requirements file another one includes (-r)', 'services/api/extra.txt'],
    ['an editable local package (-e ./pkg)', 'services/api/libs/shared/shared.py'],
    ['.npmrc', '.npmrc'],
    ['.yarnrc.yml', '.yarnrc.yml'],
    ['.cargo/config.toml', '.cargo/config.toml'],
    ['pip.conf', 'pip.conf'],
    ['a script a setup command runs (bash scripts/setup.sh)', 'scripts/setup.sh'],
    ['a script a setup command runs (./install.sh)', 'install.sh'],
    ['a makefile named with make -f', 'build.mk'],
    ['the makefile a bare make reads', 'native/Makefile'],
    ['a lifecycle script package.json runs', 'scripts/postinstall.js'],
    ['a file: dependency', 'vendor/local/index.js'],
    ['a Cargo path dependency', 'crates/helper/src/lib.rs'],
    ['a file sandbox.cache_key_files names', 'tools/generate.py'],
  ];

  it('changes with every kind of file setup reads', async () => {
    const unchanged = await keyOf();
    for (const [what, path] of inputs) expect(await keyOf(path), what).not.toBe(unchanged);
  });

  it('stays the same when only a source file changes, so the next job still reuses the environment', async () => {
    expect(await keyOf('src/app.py')).toBe(await keyOf());
    expect(await keyOf('README.md')).toBe(await keyOf());
  });

  it('changes with the setup commands and the base image', async () => {
    const dir = await tempDir();
    const lockfiles = await setupInputDigests(dir, SETUP);
    const key = environmentKey({ baseImageId: 'sha256:base', setup: SETUP, lockfiles });
    expect(environmentKey({ baseImageId: 'sha256:other', setup: SETUP, lockfiles })).not.toBe(key);
    const other = [...SETUP, { command: 'npm ci' }];
    expect(environmentKey({ baseImageId: 'sha256:base', setup: other, lockfiles })).not.toBe(key);
  });

  it('never reads outside the checkout, whatever a manifest names', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'package.json'), JSON.stringify({ dependencies: { x: 'file:../../etc' } }));
    expect(Object.keys(await setupInputDigests(dir, [{ command: 'cat /etc/passwd ../x' }]))).toEqual([
      'package.json',
    ]);
  });
});
