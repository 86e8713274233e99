import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import tarStream from 'tar-stream';

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
