// tar-fs 3 ships no types and @types/tar-fs describes version 2; this covers what we use.
declare module 'tar-fs' {
  import type { Readable, Writable } from 'node:stream';

  export interface TarHeader {
    name: string;
    type?: string;
    size?: number;
    mode?: number;
    uid?: number;
    gid?: number;
    uname?: string;
    gname?: string;
    linkname?: string | null;
    mtime?: Date;
  }

  export interface PackOptions {
    map?: (header: TarHeader) => TarHeader;
    ignore?: (name: string) => boolean;
    /** false: the stream stays open after the walk, for `finish` to add entries and finalize it. */
    finalize?: boolean;
    /** Called with the tar-stream pack once the walk is done. */
    finish?: (pack: Pack) => void;
  }

  /** The tar-stream pack under a tar-fs pack, as far as `finish` uses it. */
  export interface Pack {
    entry(header: TarHeader, content: Buffer, callback: (error?: Error | null) => void): unknown;
    finalize(): void;
    destroy(error?: Error): void;
  }

  export interface ExtractOptions {
    map?: (header: TarHeader) => TarHeader;
    ignore?: (name: string, header?: TarHeader) => boolean;
    chown?: boolean;
    validateSymlinks?: boolean;
    strict?: boolean;
  }

  export function pack(directory: string, options?: PackOptions): Readable;
  export function extract(directory: string, options?: ExtractOptions): Writable;
  const tar: { pack: typeof pack; extract: typeof extract };
  export default tar;
}
