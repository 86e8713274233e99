import { Readable } from 'node:stream';

export interface CraftedEntry {
  name: string;
  type?: 'file' | 'link' | 'symlink' | 'char' | 'block' | 'directory' | 'fifo';
  body?: string;
  linkname?: string;
  mode?: number;
  /** Owner ids; 1000 (the sandbox user) unless given. */
  uid?: number;
  gid?: number;
}

const FLAGS = { file: '0', link: '1', symlink: '2', char: '3', block: '4', directory: '5', fifo: '6' };

/**
 * A ustar archive built by hand, byte by byte, so that entries no engine
 * would produce (names climbing out, devices, links to anywhere) can be fed
 * to the code that reads archives from a container.
 */
export function craftedTar(entries: CraftedEntry[]): Readable {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const body = Buffer.from(entry.body ?? '');
    const header = Buffer.alloc(512);
    header.write(entry.name, 0, 100);
    header.write(`${(entry.mode ?? 0o644).toString(8).padStart(7, '0')}\0`, 100);
    header.write(`${(entry.uid ?? 1000).toString(8).padStart(7, '0')}\0`, 108);
    header.write(`${(entry.gid ?? 1000).toString(8).padStart(7, '0')}\0`, 116);
    header.write(`${body.length.toString(8).padStart(11, '0')}\0`, 124);
    header.write('00000000000\0', 136);
    header.write('        ', 148);
    header.write(FLAGS[entry.type ?? 'file'], 156);
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
