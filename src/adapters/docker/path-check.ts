// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these are sh scripts, and ${…} is sh parameter expansion
import { posix } from 'node:path';
import {
  type WorkspacePathError,
  type WorkspacePathProblem,
  workspacePathProblem,
} from '../../errors/index.js';
import type { WorkspaceFile } from '../../sandbox/sandbox.js';

/**
 * The engine's archive API runs as root and follows links anywhere in the
 * container: a read through a link would return a file only root may read,
 * a read through a file used as a folder answers a bare HTTP 500, and a write
 * silently replaces a file with a folder (or a link with a file). So every
 * path is resolved by one small command run as the sandbox user, inside the
 * workspace only, and a file is read or written by that same command: the
 * kernel's permissions apply, never the engine's, and no other command runs
 * between the check and the read or write.
 *
 * Each part of the path is checked from the shortest: a part that leads out
 * of the workspace (an absolute link, `..`, a chain of links) or loops stops
 * it with its name; a part that is not a folder blocks what lies below it.
 * What is read is the file the shell opened, checked again through
 * /proc/self/fd, so a folder swapped for a link after the check is caught.
 * Fields are NUL-separated: a file name may hold a newline, never a NUL.
 */
const RESOLVE = [
  // value: the read's size limit, or the written file's mode.
  'what="$1" target="$2" value="$3"; shift 3',
  'root=$(pwd -P)',
  'inside() { case "$1" in "$root" | "$root"/*) return 0 ;; esac; return 1; }',
  'base= parent= rest= real=',
  'for part in "$@" "$target"; do',
  '  parent="$base"',
  '  if [ -n "$rest" ] || { [ ! -e "$part" ] && [ ! -L "$part" ]; }; then',
  '    rest="${rest:+$rest/}${part##*/}"; continue',
  '  fi',
  // -m (GNU) also resolves a link into a folder that does not exist; busybox has only -f.
  '  real=$(readlink -m -- "$part" 2>/dev/null || readlink -f -- "$part") || { printf "link-loop\\0%s" "$part"; exit 0; }',
  '  inside "$real" || { printf "outside-link\\0%s" "$part"; exit 0; }',
  // Resolved to something there (a chain too long for the kernel) or still a link (a loop): not usable.
  '  if [ ! -e "$part" ] && { [ -e "$real" ] || [ -L "$real" ]; }; then printf "link-loop\\0%s" "$part"; exit 0; fi',
  '  if [ "$part" != "$target" ] && [ ! -d "$part" ]; then',
  '    printf "not-a-folder\\0%s" "$part"; exit 0',
  '  fi',
  '  base="${real#"$root"}"; base="${base#/}"',
  'done',
  'resolved="$base"; [ -z "$rest" ] || resolved="${base:+$base/}$rest"',
].join('\n');

/**
 * The write, from stdin, where the links inside the workspace lead: into a new
 * file beside the target, then renamed over it, so a link in the target's own
 * place is replaced rather than followed, and a failed write leaves the old
 * file whole. Missing folders are made by the same user, so it can use them.
 */
const WRITE = [
  'if [ -d "$target" ]; then printf "is-a-folder\\0"; exit 0; fi',
  'umask 022',
  'dest="$root/$resolved"; dir="${dest%/*}"',
  'mkdir -p -- "$dir" 2>/dev/null && [ -w "$dir" ] || { printf "permission-denied\\0"; exit 0; }',
  'tmp=$(mktemp "$dir/.selfdebug-write.XXXXXX") || exit 4',
  'trap \'rm -f -- "$tmp"\' EXIT',
  'cat >"$tmp" && chmod "$value" "$tmp" && mv -f -- "$tmp" "$dest" || exit 4',
  'printf "ok\\0%s" "$resolved"',
].join('\n');

const READ = [
  'if [ -n "$rest" ]; then printf "missing\\0"; exit 0; fi',
  'if [ ! -f "$target" ]; then printf "missing\\0"; exit 0; fi',
  'if [ ! -r "$target" ]; then printf "permission-denied\\0"; exit 0; fi',
  'command exec 3<"$target" || { printf "permission-denied\\0"; exit 0; }',
  'opened=$(readlink /proc/$$/fd/3)',
  'inside "$opened" || { printf "outside-link\\0%s" "$target"; exit 0; }',
  // find first: the gVisor Debian ships answers stat's statx with EINVAL; busybox has only stat.
  'set -- $(find -L "./$target" -maxdepth 0 -printf "%m %s" 2>/dev/null || stat -L -c "%a %s" -- "$target")',
  'if [ "${2:-0}" -gt "$value" ]; then printf "missing\\0"; exit 0; fi',
  'link=; if [ -L "$target" ]; then link=$(readlink -- "$target"; printf x); link=${link%?x}; fi',
  'printf "file\\0%s\\0%s\\0%s\\0%s\\0" "$1" "$resolved" "$parent" "$link"',
  'exec cat <&3',
].join('\n');

/** The parts of `path` that must be folders, shortest first. */
function prefixes(path: string): string[] {
  const parts = path.split('/');
  return parts.slice(0, -1).map((_, index) => parts.slice(0, index + 1).join('/'));
}

function command(workdir: string, what: 'read' | 'write', path: string, value: string): string[] {
  const body = what === 'read' ? READ : WRITE;
  // The workspace is $0, so the script's own arguments start at what it does.
  return [
    'sh',
    '-c',
    `cd "$0" || exit 3\n${RESOLVE}\n${body}`,
    workdir,
    what,
    path,
    value,
    ...prefixes(path),
  ];
}

/**
 * The command that writes its stdin to `path` (relative to the workspace) as
 * the sandbox user, with `mode`'s permission bits: where it landed, or what
 * stands in its way.
 */
export function writeFileCommand(workdir: string, path: string, mode: number): string[] {
  // Permission bits only: a setuid or setgid bit is no file mode an edit needs.
  return command(workdir, 'write', path, (mode & 0o777).toString(8));
}

/** The command that reads `path` as the sandbox user: a header, then the file's bytes. */
export function readFileCommand(workdir: string, path: string, maxBytes: number): string[] {
  return command(workdir, 'read', path, String(maxBytes));
}

/** The next NUL-terminated field of `bytes` from `start`. */
function field(bytes: Buffer, start: number): { value: string; next: number } {
  const end = bytes.indexOf(0, start);
  const stop = end === -1 ? bytes.length : end;
  return { value: bytes.subarray(start, stop).toString('utf8'), next: stop + 1 };
}

const PROBLEMS: readonly string[] = [
  'not-a-folder',
  'is-a-folder',
  'outside-link',
  'link-loop',
  'permission-denied',
];

function problemOf(path: string, verdict: string, blocker: string): WorkspacePathError | null {
  if (!PROBLEMS.includes(verdict)) return null;
  const problem = verdict as Exclude<WorkspacePathProblem, 'invalid'>;
  return workspacePathProblem(path, problem, blocker === '' ? {} : { blocker });
}

/** Reads the write command's output: the path the write landed on, or what stood in its way. */
export function parseWriteFile(path: string, stdout: Buffer): WorkspacePathError | { resolved: string } {
  const verdict = field(stdout, 0);
  const detail = field(stdout, verdict.next).value;
  if (verdict.value === 'ok') return { resolved: detail === '' ? path : detail };
  return problemOf(path, verdict.value, detail) ?? { resolved: path };
}

export interface ReadOutcome {
  content: Buffer;
  mode: number;
  resolved: string;
  /** The real folder the path's last part is in ('' for the workspace itself). */
  parent: string;
  link: string;
}

/** Reads the read command's output: the file, null when there is no such regular file, or the problem. */
export function parseReadFile(path: string, stdout: Buffer): ReadOutcome | WorkspacePathError | null {
  const verdict = field(stdout, 0);
  if (verdict.value !== 'file') {
    return problemOf(path, verdict.value, field(stdout, verdict.next).value);
  }
  const mode = field(stdout, verdict.next);
  const resolved = field(stdout, mode.next);
  const parent = field(stdout, resolved.next);
  const link = field(stdout, parent.next);
  return {
    // Permission bits only: a setuid or setgid bit set in the sandbox must never reach the host.
    mode: Number.parseInt(mode.value, 8) & 0o777,
    resolved: resolved.value,
    parent: parent.value,
    link: link.value,
    content: stdout.subarray(link.next),
  };
}

/** The port's view of a read: where links led, when they led anywhere. */
export function workspaceFile(path: string, read: ReadOutcome): WorkspaceFile {
  const file: WorkspaceFile = { content: read.content, mode: read.mode };
  if (read.resolved !== '' && read.resolved !== path) file.realPath = read.resolved;
  if (read.link !== '')
    file.symlink = { path: posix.join(read.parent, posix.basename(path)), target: read.link };
  return file;
}
