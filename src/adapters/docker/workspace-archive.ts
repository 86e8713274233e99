import { lstatSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join, posix, relative, sep } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar, { type Pack } from 'tar-fs';
import { CredentialPlan, credentialRule, type RemovedCredential } from '../../sandbox/credential-plan.js';
import { removeLinksLeaving } from '../../sandbox/resolve-inside.js';
import type { RefusedEntry } from '../../sandbox/sandbox.js';

/**
 * A tar stream of `hostDir` whose entries belong to the sandbox user, without
 * the credentials a runner left in it (see CredentialPlan): dropped files are
 * never read, stripped ones are read from the host and appended last. `removed`
 * settles once the stream has ended.
 */
export function packWorkspace(
  hostDir: string,
  owner: { uid: number; gid: number },
): { archive: Readable; removed: Promise<RemovedCredential[]> } {
  const plan = new CredentialPlan();
  let settle!: { resolve: (removed: RemovedCredential[]) => void; reject: (error: unknown) => void };
  const removed = new Promise<RemovedCredential[]>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const header = { uid: owner.uid, gid: owner.gid, uname: '', gname: '' };
  const archive = tar.pack(hostDir, {
    map: (entry) => ({ ...entry, ...header }),
    // tar-fs asks with the host path; a sync lstat, since a link must be copied as a link, never read.
    ignore: (name) => {
      const path = relative(hostDir, name).split(sep).join('/');
      if (credentialRule(path) === null) return false;
      return !plan.admit(path, lstatSync(name, { throwIfNoEntry: false })?.isFile() ? 'file' : 'other');
    },
    finalize: false,
    finish: (pack) => {
      appendRewrites(plan, hostDir, pack, header).then(
        () => settle.resolve(plan.removed),
        (error: unknown) => {
          settle.reject(error);
          pack.destroy(error as Error);
        },
      );
    },
  });
  removed.catch(() => {});
  return { archive, removed };
}

async function appendRewrites(
  plan: CredentialPlan,
  hostDir: string,
  pack: Pack,
  header: { uid: number; gid: number },
): Promise<void> {
  const rewrites = await plan.rewrites((path) => readFile(join(hostDir, path)));
  for (const { path, content } of rewrites) {
    const { mode, mtime } = await stat(join(hostDir, path));
    await new Promise<void>((resolve, reject) =>
      pack.entry({ ...header, name: path, mode: mode & 0o7777, mtime }, content, (error) =>
        error ? reject(error) : resolve(),
      ),
    );
  }
  pack.finalize();
}

export class ArchiveTooLargeError extends Error {}
export class ArchiveTooManyEntriesError extends Error {}

export interface ExtractLimits {
  /** Most bytes of archive read before the extraction fails. */
  maxBytes: number;
  /** Most entries (files, folders, links: host inodes) before the extraction fails. */
  maxEntries: number;
  /**
   * Who commands run as. The engine packs the archive as root, so an entry
   * this user could not read (a file root made with mode 600, a folder it
   * locked) would otherwise come out: it is refused instead.
   */
  reader?: { uid: number; gid: number };
}

type Kind = 'directory' | 'file' | 'symlink';
type Header = { name: string; type?: string | null; linkname?: string | null; [key: string]: unknown };

/**
 * Extracts a tar stream that came out of a container. Its content is
 * untrusted: entries are re-rooted under `dest` (the first path component,
 * the workspace folder's own name, is dropped). An entry that could not be
 * written safely is skipped and returned with the reason, and the rest is
 * extracted: a fifo or a stray link in a build folder must not cost the job.
 * Only the caps (`maxBytes`, `maxEntries`) fail the whole extraction, since
 * past them the host disk itself is at stake.
 */
export async function extractWorkspace(
  archive: Readable,
  dest: string,
  limits: ExtractLimits,
): Promise<RefusedEntry[]> {
  const entries = new EntryCheck(limits.reader);
  const skipped = new WeakSet<object>();
  const pastCap = entryCap(limits.maxEntries, (error) => extract.destroy(error));
  const extract = tar.extract(dest, {
    chown: false,
    validateSymlinks: false,
    // tar-fs calls map, then ignore, for each entry; throwing here would escape the stream.
    map: (header) => {
      const mapped = pastCap() ? null : entries.check(header as Header);
      if (mapped === null) {
        skipped.add(header);
        return header;
      }
      return { ...header, ...mapped };
    },
    ignore: (_name, header) => header !== undefined && skipped.has(header),
  });
  await pipeline(archive, byteLimit(limits.maxBytes), extract);
  // Judged once all is written: whether a link leads out depends on the links it passes through.
  const leaving = await removeLinksLeaving(dest, entries.symlinks());
  return [...entries.refused, ...leaving];
}

/**
 * Counts the entries and says whether this one is past `maxEntries`; the first one past it fails
 * the extraction. Such an entry must also be skipped: tar-fs writes an entry it mapped even after a
 * destroy, and that write raced the caller's removal of the folder (ENOTEMPTY). The failure waits a
 * tick since tar-fs moves on to the next entry at once, which a destroyed stream throws on.
 */
function entryCap(maxEntries: number, fail: (error: Error) => void): () => boolean {
  let count = 0;
  return () => {
    count += 1;
    if (count !== maxEntries + 1) return count > maxEntries;
    const error = new ArchiveTooManyEntriesError(
      `the workspace archive holds more than ${maxEntries} entries`,
    );
    process.nextTick(() => fail(error));
    return true;
  };
}

/**
 * Decides each entry against what the archive already wrote, so that tar-fs
 * never meets a case it would either fail on (ending the copy) or follow a
 * link for: a folder entry over a link would chmod the link's target, a hard
 * link is resolved with realpath, a name below a file or link cannot be made.
 * `kinds` mirrors the destination, which starts empty.
 */
class EntryCheck {
  readonly refused: RefusedEntry[] = [];
  private readonly kinds = new Map<string, Kind>([['.', 'directory']]);
  private readonly symlinkTargets = new Map<string, string>();
  private readonly gitFolders = new Set<string>();
  /** Folders the reader may not enter: refused once, and everything below them silently. */
  private readonly lockedFolders = new Set<string>();

  constructor(private readonly reader?: { uid: number; gid: number }) {}

  /** The symbolic links kept so far. */
  symlinks(): string[] {
    return [...this.kinds].filter(([, kind]) => kind === 'symlink').map(([name]) => name);
  }

  /** The header's new name and link (and type, for a hard link to a symlink), or null to skip it. */
  check(header: Header): { name: string; linkname?: string; type?: string } | null {
    const type = header.type ?? 'file';
    const raw = header.name;
    if (posix.isAbsolute(raw)) return this.refuse(raw, 'its name is absolute');
    const name = entryName(raw);
    if (name === null) return this.refuse(raw, 'its name leads out of the workspace');
    const git = gitFolder(name);
    if (git !== null) {
      // git's own data would make the host's git read a config, hooks or history the sandbox wrote.
      if (this.gitFolders.has(git)) return null;
      this.gitFolders.add(git);
      return this.refuse(git, "git's own folder is never copied back (the host keeps its own)");
    }
    if (this.insideLocked(name)) return null;
    if (!this.readable(header, type)) {
      if (type === 'directory') this.lockedFolders.add(name);
      return this.refuse(name, 'the sandbox user may not read it; only root could');
    }
    const parent = this.blockedParent(name);
    if (parent !== null) return this.refuse(name, `"${parent}" is not a folder on the way to it`);
    const existing = this.kinds.get(name);
    if (existing !== undefined && (existing === 'directory') !== (type === 'directory'))
      return this.refuse(
        name,
        `it would replace a ${existing === 'directory' ? 'folder' : 'file'} of the same name`,
      );

    if (type === 'directory') return this.keep(name, 'directory', {});
    if (type === 'file' || type === 'contiguous-file') return this.keep(name, 'file', {});
    if (type === 'symlink') {
      this.symlinkTargets.set(name, header.linkname ?? '');
      return this.keep(name, 'symlink', {});
    }
    if (type === 'link') return this.hardLink(name, header.linkname ?? '');
    return this.refuse(name, `${type} entries are not copied back`);
  }

  /** A hard link is kept only to a file or symlink this archive already wrote; one to a symlink becomes that symlink. */
  private hardLink(name: string, linkname: string) {
    if (posix.isAbsolute(linkname)) return this.refuse(name, 'it is a hard link to an absolute path');
    const target = entryName(linkname);
    if (target === null) return this.refuse(name, 'it is a hard link leading out of the workspace');
    if (target === name) return this.refuse(name, 'it is a hard link to itself');
    const kind = this.kinds.get(target);
    if (kind === 'file') return this.keep(name, 'file', { linkname: target });
    if (kind === 'symlink') {
      const symlink = this.symlinkTargets.get(target) ?? '';
      this.symlinkTargets.set(name, symlink);
      return this.keep(name, 'symlink', { type: 'symlink', linkname: symlink });
    }
    return this.refuse(name, `it is a hard link to "${target}", which is not a file in the workspace`);
  }

  private keep(name: string, kind: Kind, extra: { linkname?: string; type?: string }) {
    // tar-fs makes missing folders on the way; they are folders from now on.
    const parts = name.split('/');
    for (let depth = 1; depth < parts.length; depth++) {
      const folder = parts.slice(0, depth).join('/');
      if (!this.kinds.has(folder)) this.kinds.set(folder, 'directory');
    }
    this.kinds.set(name, kind);
    return { name, ...extra };
  }

  /** Whether the reader's own permissions let it read this entry (and enter it, for a folder). */
  private readable(header: Header, type: string): boolean {
    if (this.reader === undefined || this.reader.uid === 0 || type === 'symlink') return true;
    const mode = Number(header.mode ?? 0);
    const need = type === 'directory' ? 0o5 : 0o4;
    const bits =
      Number(header.uid) === this.reader.uid
        ? mode >> 6
        : Number(header.gid) === this.reader.gid
          ? mode >> 3
          : mode;
    return (bits & need) === need;
  }

  private insideLocked(name: string): boolean {
    for (const folder of this.lockedFolders) if (name.startsWith(`${folder}/`)) return true;
    return false;
  }

  private blockedParent(name: string): string | null {
    const parts = name.split('/');
    for (let depth = 1; depth < parts.length; depth++) {
      const folder = parts.slice(0, depth).join('/');
      const kind = this.kinds.get(folder);
      if (kind !== undefined && kind !== 'directory') return folder;
    }
    return null;
  }

  private refuse(path: string, reason: string): null {
    this.refused.push({ path, reason });
    return null;
  }
}

/** The name below the workspace folder, normalised; null when it climbs out. */
function entryName(name: string): string | null {
  const slash = name.indexOf('/');
  const inside = slash === -1 ? '.' : name.slice(slash + 1) || '.';
  const normalized = posix.normalize(inside).replace(/\/+$/, '') || '.';
  if (posix.isAbsolute(normalized) || normalized === '..' || normalized.startsWith('../')) return null;
  return normalized;
}

/** The `.git` folder an entry is in (at any depth, in any case), or null. */
function gitFolder(name: string): string | null {
  const parts = name.split('/');
  const index = parts.findIndex((part) => part.toLowerCase() === '.git');
  return index === -1 ? null : parts.slice(0, index + 1).join('/');
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
