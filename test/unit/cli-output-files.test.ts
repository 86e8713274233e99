import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  it.skipIf(isRoot)('refuses a folder this user cannot write to', async () => {
    const locked = join(folder, 'locked');
    mkdirSync(locked);
    chmodSync(locked, 0o500);
    try {
      const error = await checkOutputPath('--record', join(locked, 'session.json')).catch(
        (caught: unknown) => caught,
      );
      expect((error as Error).message).toContain('cannot be written by this user');
    } finally {
      chmodSync(locked, 0o700);
    }
  });
});

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
