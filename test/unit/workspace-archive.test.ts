import { lstat, readdir, readFile, readlink, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ArchiveTooLargeError,
  ArchiveTooManyEntriesError,
  extractWorkspace,
} from '../../src/adapters/docker/workspace-archive.js';
import { craftedTar } from '../helpers/crafted-tar.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const LIMITS = { maxBytes: 64 * 1024, maxEntries: 1000 };

describe('extractWorkspace', () => {
  const tempDir = useTempDirs();

  it('re-roots entries under the destination, keeps links inside as data, and leaves out links leading out', async () => {
    const dest = await tempDir();
    const refused = await extractWorkspace(
      craftedTar([
        { name: 'workspace/', type: 'directory' },
        { name: 'workspace/a.txt', body: 'A' },
        { name: 'workspace/sub/b.txt', body: 'B' },
        { name: 'workspace/sub/up', type: 'symlink', linkname: '../a.txt' },
        { name: 'workspace/python', type: 'symlink', linkname: '/usr/bin/python3' },
        { name: 'workspace/parent', type: 'symlink', linkname: 'sub/../..' },
      ]),
      dest,
      LIMITS,
    );
    expect(refused).toEqual([
      { path: 'python', reason: 'it is a link to "/usr/bin/python3", which leads out of the workspace' },
      { path: 'parent', reason: 'it is a link to "sub/../..", which leads out of the workspace' },
    ]);
    expect(await readFile(join(dest, 'a.txt'), 'utf8')).toBe('A');
    expect(await readFile(join(dest, 'sub/b.txt'), 'utf8')).toBe('B');
    expect(await readlink(join(dest, 'sub/up'))).toBe('../a.txt');
    expect((await readdir(dest)).sort()).toEqual(['a.txt', 'sub']);
  });

  it('leaves out what the sandbox user could not read, which the engine packed as root', async () => {
    const dest = await tempDir();
    const refused = await extractWorkspace(
      craftedTar([
        { name: 'workspace/mine.txt', body: 'mine', mode: 0o600, uid: 1000, gid: 1000 },
        { name: 'workspace/shadow', body: 'secret', mode: 0o600, uid: 0, gid: 0 },
        { name: 'workspace/shadow-again', type: 'link', linkname: 'workspace/shadow' },
        { name: 'workspace/locked/', type: 'directory', mode: 0o700, uid: 0, gid: 0 },
        { name: 'workspace/locked/key', body: 'secret', mode: 0o644, uid: 0, gid: 0 },
      ]),
      dest,
      { ...LIMITS, reader: { uid: 1000, gid: 1000 } },
    );
    expect(refused.map((entry) => entry.path)).toEqual(['shadow', 'shadow-again', 'locked']);
    expect(refused[0]?.reason).toBe('the sandbox user may not read it; only root could');
    expect(await readdir(dest)).toEqual(['mine.txt']);
  });

  it('skips and lists entries that climb out, absolute names, devices, fifos and hard links leaving the workspace', async () => {
    const dest = await tempDir();
    const refused = await extractWorkspace(
      craftedTar([
        { name: 'workspace/../../escape.txt', body: 'x' },
        { name: '/tmp/absolute.txt', body: 'x' },
        { name: 'workspace/tty', type: 'char' },
        { name: 'workspace/disk', type: 'block' },
        { name: 'workspace/pipe', type: 'fifo' },
        { name: 'workspace/passwd', type: 'link', linkname: 'workspace/../../etc/passwd' },
        { name: 'workspace/shadow', type: 'link', linkname: '/etc/shadow' },
        { name: 'workspace/kept.txt', body: 'kept' },
      ]),
      dest,
      LIMITS,
    );
    expect(refused.map((entry) => entry.path)).toEqual([
      'workspace/../../escape.txt',
      '/tmp/absolute.txt',
      'tty',
      'disk',
      'pipe',
      'passwd',
      'shadow',
    ]);
    expect(refused.every((entry) => entry.reason.length > 0)).toBe(true);
    expect(await readdir(dest)).toEqual(['kept.txt']);
  });

  it('keeps a hard link to a file, and turns one to a symlink into that symlink', async () => {
    const dest = await tempDir();
    const refused = await extractWorkspace(
      craftedTar([
        { name: 'workspace/a.txt', body: 'A' },
        { name: 'workspace/b.txt', type: 'link', linkname: 'workspace/a.txt' },
        { name: 'workspace/py', type: 'symlink', linkname: 'a.txt' },
        { name: 'workspace/py-hard', type: 'link', linkname: 'workspace/py' },
        { name: 'workspace/dangling', type: 'symlink', linkname: 'nowhere' },
        { name: 'workspace/dangling-hard', type: 'link', linkname: 'workspace/dangling' },
      ]),
      dest,
      LIMITS,
    );
    expect(refused).toEqual([]);
    expect((await stat(join(dest, 'b.txt'))).ino).toBe((await stat(join(dest, 'a.txt'))).ino);
    expect(await readlink(join(dest, 'py-hard'))).toBe('a.txt');
    expect(await readlink(join(dest, 'dangling-hard'))).toBe('nowhere');
  });

  it('never writes below a link, nor replaces a link by a folder (which would chmod its target)', async () => {
    const dest = await tempDir();
    const outside = await tempDir();
    const before = (await stat(outside)).mode;
    const refused = await extractWorkspace(
      craftedTar([
        { name: 'workspace/src', type: 'symlink', linkname: outside },
        { name: 'workspace/src/', type: 'directory', mode: 0o777 },
        { name: 'workspace/src/evil.txt', body: 'x' },
        { name: 'workspace/file.txt', body: 'f' },
        { name: 'workspace/file.txt/below', body: 'x' },
      ]),
      dest,
      LIMITS,
    );
    expect((await stat(outside)).mode).toBe(before);
    expect(await readdir(outside)).toEqual([]);
    // The link itself leads out, so it is left out too once the archive is read.
    expect(refused.map((entry) => entry.path)).toEqual(['src', 'src/evil.txt', 'file.txt/below', 'src']);
    expect(await lstat(join(dest, 'src')).catch(() => null)).toBeNull();
  });

  it('leaves every .git folder out, listing each once', async () => {
    const dest = await tempDir();
    const refused = await extractWorkspace(
      craftedTar([
        { name: 'workspace/.git/config', body: '[core]\n\tfsmonitor = touch /tmp/pwned\n' },
        { name: 'workspace/.git/hooks/pre-commit', body: '#!/bin/sh\n', mode: 0o755 },
        { name: 'workspace/lib/.GIT/config', body: '[core]\n' },
        { name: 'workspace/app.py', body: 'print(1)\n' },
      ]),
      dest,
      LIMITS,
    );
    expect(refused.map((entry) => entry.path)).toEqual(['.git', 'lib/.GIT']);
    expect((await readdir(dest)).sort()).toEqual(['app.py']);
  });

  it('clears setuid, setgid and sticky bits', async () => {
    const dest = await tempDir();
    await extractWorkspace(
      craftedTar([
        { name: 'workspace/run', body: '#!/bin/sh\n', mode: 0o6755 },
        { name: 'workspace/shared/', type: 'directory', mode: 0o3777 },
      ]),
      dest,
      LIMITS,
    );
    expect((await stat(join(dest, 'run'))).mode & 0o7000).toBe(0);
    expect((await stat(join(dest, 'shared'))).mode & 0o7000).toBe(0);
  });

  it('stops at the size cap', async () => {
    const dest = await tempDir();
    const big = craftedTar([{ name: 'workspace/big.bin', body: 'x'.repeat(128 * 1024) }]);
    await expect(extractWorkspace(big, dest, LIMITS)).rejects.toBeInstanceOf(ArchiveTooLargeError);
  });

  it('stops at the entry cap', async () => {
    const dest = await tempDir();
    const many = craftedTar(Array.from({ length: 50 }, (_, index) => ({ name: `workspace/f${index}` })));
    await expect(extractWorkspace(many, dest, { ...LIMITS, maxEntries: 10 })).rejects.toBeInstanceOf(
      ArchiveTooManyEntriesError,
    );
    expect((await readdir(dest)).length).toBeLessThanOrEqual(10);
  });

  it('writes nothing of the entry past the cap, so the caller can remove the folder at once', async () => {
    // The copy-back removes its staging folder as soon as the extraction fails; an entry written
    // after that (a folder made on the way to it) made that removal fail with ENOTEMPTY.
    const dest = await tempDir();
    const first = Array.from({ length: 10 }, (_, index) => ({ name: `workspace/f${index}` }));
    const many = craftedTar([...first, { name: 'workspace/late/deep/file.txt', body: 'late' }]);
    await expect(extractWorkspace(many, dest, { ...LIMITS, maxEntries: 10 })).rejects.toBeInstanceOf(
      ArchiveTooManyEntriesError,
    );
    expect((await readdir(dest, { recursive: true })).sort()).toEqual(
      first.map((entry) => entry.name.slice('workspace/'.length)).sort(),
    );
  });
});
