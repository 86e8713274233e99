import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import tarStream from 'tar-stream';
import type { WorkspaceFile } from '../../sandbox/sandbox.js';

/**
 * A tar holding one file and each of its folders, all owned by the sandbox
 * user: Docker would create missing folders as root, which the sandbox user
 * could then not write into.
 */
export function singleFileArchive(
  path: string,
  content: Buffer,
  mode: number,
  owner: { uid: number; gid: number },
): Readable {
  const pack = tarStream.pack();
  const folders = posix
    .dirname(path)
    .split('/')
    .filter((part) => part !== '.' && part !== '');
  for (let depth = 1; depth <= folders.length; depth++) {
    pack.entry({ name: `${folders.slice(0, depth).join('/')}/`, type: 'directory', mode: 0o755, ...owner });
  }
  // A tar header keeps whole seconds: an edit stamped so would be older than a build output made
  // earlier in the same second, and make would not rebuild. A PAX record carries the milliseconds.
  const mtime = new Date();
  pack.entry(
    {
      name: path,
      type: 'file',
      mode,
      size: content.length,
      mtime,
      pax: { mtime: (mtime.getTime() / 1000).toFixed(3) },
      ...owner,
    },
    content,
  );
  pack.finalize();
  // tar-stream's streamx streams pipe like Node streams, which is all putArchive needs.
  return pack as unknown as Readable;
}

/** Reads the one regular file a getArchive of a file path holds; null for a folder or link. */
export async function readSingleFile(archive: Readable, maxBytes: number): Promise<WorkspaceFile | null> {
  const extract = tarStream.extract();
  let found: WorkspaceFile | null = null;
  let first = true;
  extract.on('entry', (header, stream, next) => {
    const isWanted = first && header.type === 'file' && (header.size ?? 0) <= maxBytes;
    first = false;
    if (!isWanted) {
      stream.resume();
      stream.on('end', next);
      return;
    }
    const chunks: Buffer[] = [];
    stream.on('data', (chunk) => chunks.push(chunk as Buffer));
    stream.on('end', () => {
      // Permission bits only: a setuid or setgid bit set in the sandbox must never reach the host.
      found = { content: Buffer.concat(chunks), mode: (header.mode ?? 0o644) & 0o777 };
      next();
    });
  });
  await new Promise<void>((resolve, reject) => {
    archive.once('error', reject);
    extract.once('error', reject);
    extract.once('finish', () => resolve());
    archive.pipe(extract as unknown as NodeJS.WritableStream);
  });
  return found;
}
