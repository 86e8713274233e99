import { readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  ArchiveTooLargeError,
  extractWorkspace,
  UnsafeArchiveEntryError,
} from '../../src/adapters/docker/workspace-archive.js';
import { useTempDirs } from '../helpers/temp-dir.js';

/** A ustar archive built by hand, so hostile entries can be written. */
function tarArchive(entries: { name: string; type?: string; body?: string; linkname?: string }[]): Readable {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const body = Buffer.from(entry.body ?? '');
    const header = Buffer.alloc(512);
    header.write(entry.name, 0, 100);
    header.write('0000644\0', 100);
    header.write('0001750\0', 108);
    header.write('0001750\0', 116);
    header.write(`${body.length.toString(8).padStart(11, '0')}\0`, 124);
    header.write('00000000000\0', 136);
    header.write('        ', 148);
    const flags: Record<string, string> = { file: '0', link: '1', symlink: '2', char: '3', directory: '5' };
    header.write(flags[entry.type ?? 'file'] ?? '0', 156);
    header.write(entry.linkname ?? '', 157, 100);
    header.write('ustar\x0000', 257);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    blocks.push(header, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Readable.from([Buffer.concat(blocks)]);
}

describe('extractWorkspace', () => {
  const tempDir = useTempDirs();

  it('re-roots entries under the destination and keeps symlinks as data', async () => {
    const dest = await tempDir();
    await extractWorkspace(
      tarArchive([
        { name: 'workspace/', type: 'directory' },
        { name: 'workspace/a.txt', body: 'A' },
        { name: 'workspace/sub/b.txt', body: 'B' },
        { name: 'workspace/python', type: 'symlink', linkname: '/usr/bin/python3' },
      ]),
      dest,
      64 * 1024,
    );
    expect(await readFile(join(dest, 'a.txt'), 'utf8')).toBe('A');
    expect(await readFile(join(dest, 'sub/b.txt'), 'utf8')).toBe('B');
    expect(await readlink(join(dest, 'python'))).toBe('/usr/bin/python3');
  });

  it('refuses entries that climb out, device files and hard links leaving the workspace', async () => {
    for (const hostile of [
      { name: 'workspace/../../escape.txt', body: 'x' },
      { name: 'workspace/tty', type: 'char' },
      { name: 'workspace/passwd', type: 'link', linkname: 'workspace/../../etc/passwd' },
    ]) {
      const dest = await tempDir();
      await expect(extractWorkspace(tarArchive([hostile]), dest, 64 * 1024)).rejects.toBeInstanceOf(
        UnsafeArchiveEntryError,
      );
    }
  });

  it('stops at the size cap', async () => {
    const dest = await tempDir();
    const big = tarArchive([{ name: 'workspace/big.bin', body: 'x'.repeat(128 * 1024) }]);
    await expect(extractWorkspace(big, dest, 64 * 1024)).rejects.toBeInstanceOf(ArchiveTooLargeError);
  });
});
