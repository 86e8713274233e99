import { posix } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-fs';

/** A tar stream of `hostDir` whose entries belong to the sandbox user. */
export function packWorkspace(hostDir: string, owner: { uid: number; gid: number }): Readable {
  return tar.pack(hostDir, {
    map: (header) => ({ ...header, uid: owner.uid, gid: owner.gid, uname: '', gname: '' }),
  });
}

export class ArchiveTooLargeError extends Error {}
export class UnsafeArchiveEntryError extends Error {}

/**
 * Extracts a tar stream that came out of a container. Its content is
 * untrusted: entries are re-rooted under `dest` (the first path component,
 * the workspace folder's own name, is dropped), and absolute names, `..`
 * escapes, hard links leaving the workspace, device files and archives past
 * `maxBytes` are refused. Symbolic links are kept as they are: they are data
 * in a checkout, and tar-fs never writes through one that leaves `dest`.
 */
export async function extractWorkspace(archive: Readable, dest: string, maxBytes: number): Promise<void> {
  const refused: string[] = [];
  const refusedHeaders = new WeakSet<object>();
  const extract = tar.extract(dest, {
    chown: false,
    validateSymlinks: false,
    // tar-fs calls map, then ignore, for each entry; throwing here would escape the stream.
    map: (header) => {
      const name = stripFirstComponent(header.name);
      const problem = entryProblem(header.type ?? 'file', name, header.linkname ?? '');
      const linkname = header.type === 'link' ? stripFirstComponent(header.linkname ?? '') : header.linkname;
      const mapped = { ...header, name, linkname };
      if (problem) {
        refused.push(`${header.name}: ${problem}`);
        refusedHeaders.add(mapped);
      }
      return mapped;
    },
    ignore: (_name, header) => header !== undefined && refusedHeaders.has(header),
  });
  await pipeline(archive, byteLimit(maxBytes), extract);
  if (refused.length > 0)
    throw new UnsafeArchiveEntryError(`refused entries: ${refused.slice(0, 5).join('; ')}`);
}

function entryProblem(type: string, name: string, linkname: string): string | null {
  if (!['file', 'directory', 'symlink', 'link', 'contiguous-file'].includes(type))
    return `${type} entries are not allowed`;
  if (escapes(name)) return 'outside the workspace';
  if (type === 'link' && escapes(stripFirstComponent(linkname))) return 'hard link outside the workspace';
  return null;
}

function stripFirstComponent(name: string): string {
  const slash = name.indexOf('/');
  return slash === -1 ? '.' : name.slice(slash + 1) || '.';
}

function escapes(name: string): boolean {
  const normalized = posix.normalize(name);
  return posix.isAbsolute(name) || normalized === '..' || normalized.startsWith('../');
}

/** Fails the pipeline once more than `maxBytes` have passed, before they reach the disk. */
function byteLimit(maxBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > maxBytes)
        callback(new ArchiveTooLargeError(`the workspace archive is larger than ${maxBytes} bytes`));
      else callback(null, chunk);
    },
  });
}
