import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseWriteFile, writeFileCommand } from '../../src/adapters/docker/path-check.js';
import { mapFileError } from '../../src/adapters/local/file-errors.js';
import { nameTooLong, WorkspacePathError } from '../../src/errors/index.js';
import { useTempDirs } from '../helpers/temp-dir.js';

/** Node's shape of a file-system failure. */
function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: something, open '/tmp/x'`), { code });
}

describe('workspace path errors, mapped at the adapter edge', () => {
  const tempDir = useTempDirs();

  it('maps the local file system’s codes to a typed error the model can read', async () => {
    const workdir = await tempDir();
    await writeFile(join(workdir, 'total.py'), 'x = 1\n');
    await mkdir(join(workdir, 'pkg'));
    const cases: [string, string, string][] = [
      ['ENOTDIR', 'pkg/total.py/x.py', 'not-a-folder'],
      ['EISDIR', 'pkg', 'is-a-folder'],
      ['ENAMETOOLONG', 'a/b', 'name-too-long'],
      // Root passes any permission check, so these two cannot be produced for real in the tests.
      ['EACCES', 'secret.py', 'permission-denied'],
      ['EPERM', 'secret.py', 'permission-denied'],
      ['ELOOP', 'loop/x', 'link-loop'],
    ];
    for (const [code, path, problem] of cases) {
      const mapped = await mapFileError(errno(code), path, workdir);
      expect(mapped, code).toBeInstanceOf(WorkspacePathError);
      expect(mapped, code).toMatchObject({ path, problem });
      // Never the host's own path: the model only knows workspace paths.
      expect(mapped?.message, code).not.toContain('/tmp');
    }
    const blocked = await mapFileError(errno('ENOTDIR'), 'total.py/deep/x.py', workdir);
    expect(blocked?.message).toContain('"total.py" is a file, not a folder');
    expect((await mapFileError(errno('EACCES'), 'secret.py', workdir))?.message).toBe(
      '"secret.py" is not a usable workspace path: the sandbox is not allowed to read or write it (permission denied).',
    );
  });

  it('leaves failures that are not the path’s fault alone', async () => {
    for (const code of ['ENOSPC', 'EIO', 'EMFILE']) {
      expect(await mapFileError(errno(code), 'a.py', await tempDir())).toBeNull();
    }
    expect(await mapFileError(new Error('plain'), 'a.py', await tempDir())).toBeNull();
  });

  it('reads the Docker adapter’s write command', () => {
    const nul = (...fields: string[]) => Buffer.from(fields.join('\0'));
    expect(parseWriteFile('total.py/x.py', nul('not-a-folder', 'total.py'))).toMatchObject({
      problem: 'not-a-folder',
      message: expect.stringContaining('"total.py" is a file, not a folder'),
    });
    expect(parseWriteFile('pkg', nul('is-a-folder', ''))).toMatchObject({ problem: 'is-a-folder' });
    expect(parseWriteFile('up/a.py', nul('outside-link', 'up'))).toMatchObject({ problem: 'outside-link' });
    // A write lands where the links inside the workspace lead.
    expect(parseWriteFile('alias.py', nul('ok', 'src/real.py'))).toEqual({ resolved: 'src/real.py' });
    // Each leading folder is checked, shortest first.
    // The mode keeps its permission bits only, in octal for chmod.
    expect(writeFileCommand('/workspace', 'a/b/c.py', 0o4755).slice(3)).toEqual([
      '/workspace',
      'write',
      'a/b/c.py',
      '755',
      'a',
      'a/b',
    ]);
  });

  it('knows the limits of Linux names and paths in bytes, not characters', () => {
    expect(nameTooLong('a'.repeat(255))).toBe(false);
    expect(nameTooLong('a'.repeat(256))).toBe(true);
    expect(nameTooLong('é'.repeat(128))).toBe(true);
    expect(nameTooLong(Array.from({ length: 80 }, () => 'd'.repeat(50)).join('/'))).toBe(false);
    expect(nameTooLong(Array.from({ length: 90 }, () => 'd'.repeat(50)).join('/'))).toBe(true);
  });
});
