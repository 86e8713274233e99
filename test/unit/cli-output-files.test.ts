import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/option-values.js';
import { checkOutputPath, writeOrRescue } from '../../src/cli/output-files.js';

const folder = mkdtempSync(join(tmpdir(), 'selfdebug-output-'));
const isRoot = process.getuid?.() === 0;

describe('checkOutputPath', () => {
  it('accepts a new file in an existing folder, and an existing file', async () => {
    await expect(checkOutputPath('--patch', join(folder, 'fix.patch'))).resolves.toBeUndefined();
    writeFileSync(join(folder, 'old.patch'), '');
    await expect(checkOutputPath('--patch', join(folder, 'old.patch'))).resolves.toBeUndefined();
  });

  it('names the flag and says to create a folder that does not exist', async () => {
    const path = join(folder, 'out', 'fix.patch');
    const error = await checkOutputPath('--patch', path).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain(
      `--patch "${path}": the folder ${join(folder, 'out')} does not exist.`,
    );
    expect((error as Error).message).toContain(`mkdir -p ${join(folder, 'out')}`);
  });

  it('refuses a folder given as the file', async () => {
    const error = await checkOutputPath('--record', folder).catch((caught: unknown) => caught);
    expect((error as Error).message).toMatch(/^--record ".*": is a folder\. Give a file name/);
  });

  it('refuses a folder this user cannot write to', async () => {
    const locked = mkdtempSync(join(tmpdir(), 'selfdebug-locked-'));
    chmodSync(locked, 0o555);
    const target = join(locked, 'session.json');
    // Root may write anywhere, so as root the check runs in a child process as nobody.
    const message = isRoot ? messageAsNobody(target) : await messageOf(target);
    expect(message).toContain('cannot be written by this user');
    chmodSync(locked, 0o700);
  });
});

async function messageOf(target: string): Promise<string> {
  const error = await checkOutputPath('--record', target).catch((caught: unknown) => caught);
  return (error as Error).message;
}

/**
 * Runs the check as nobody. The module is bundled into a temporary folder
 * first: the clone itself may sit where nobody cannot enter (root's home, a
 * `mktemp -d` folder), and the check must not depend on where it was cloned.
 */
function messageAsNobody(target: string): string {
  const folder = mkdtempSync(join(tmpdir(), 'selfdebug-as-nobody-'));
  chmodSync(folder, 0o755);
  const bundle = join(folder, 'output-files.mjs');
  buildSync({
    entryPoints: [new URL('../../src/cli/output-files.ts', import.meta.url).pathname],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: bundle,
    logLevel: 'silent',
  });
  chmodSync(bundle, 0o644);
  const script = `import(${JSON.stringify(bundle)}).then((m) => m.checkOutputPath('--record', ${JSON.stringify(target)})).then(() => console.log('accepted'), (e) => console.log(e.message));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    uid: 65534,
    gid: 65534,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: tmpdir() },
    cwd: folder,
  });
  return `${child.stdout}${child.stderr}`;
}

describe('writeOrRescue', () => {
  it('writes where asked when it can', async () => {
    const path = join(folder, 'written.patch');
    expect(await writeOrRescue(path, 'diff')).toEqual({ path, rescued: false });
    expect(readFileSync(path, 'utf8')).toBe('diff');
  });

  it('saves the text to a temporary file when writing fails, and says why', async () => {
    const failing = () => Promise.reject(Object.assign(new Error('gone'), { code: 'ENOENT' }));
    const outcome = await writeOrRescue(join(folder, 'vanished', 'fix.patch'), 'the fix', failing);
    expect(outcome).toMatchObject({ rescued: true, why: 'ENOENT' });
    expect(outcome.path.startsWith(tmpdir())).toBe(true);
    expect(outcome.path.endsWith('fix.patch')).toBe(true);
    expect(readFileSync(outcome.path, 'utf8')).toBe('the fix');
  });
});
