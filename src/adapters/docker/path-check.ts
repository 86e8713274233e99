import { type WorkspacePathError, workspacePathProblem } from '../../errors/sandbox-errors.js';

/**
 * The engine's archive API cannot be trusted with a bad path: a read through
 * a file used as a folder answers a bare HTTP 500, and a write silently
 * replaces a file with a folder (or a whole folder with a file). So the
 * adapter looks first, with one small command in the container, and turns
 * what it finds into our typed error.
 */
const SCRIPT = [
  'target="$1"; shift',
  'root=$(pwd -P)',
  'last=. all=yes',
  // Shortest prefix first: the first one that is there but not a folder blocks the path.
  'for part in "$@"; do',
  '  if [ -e "$part" ] && [ ! -d "$part" ]; then printf "not-a-folder\\n%s" "$part"; exit 0; fi',
  '  if [ ! -e "$part" ]; then all=no; break; fi',
  '  last="$part"',
  'done',
  // The deepest part that exists (the target itself, even a dangling link) is where a write would land.
  'if [ "$all" = yes ] && { [ -e "$target" ] || [ -L "$target" ]; }; then last="$target"; fi',
  // A link on the way may lead anywhere in the container; the engine (as root) would follow it.
  'real=$(readlink -f -- "$last") || real=',
  'case "$real" in "$root" | "$root"/*) ;; *) printf "outside-link\\n%s" "$last"; exit 0 ;; esac',
  'if [ -d "$target" ] && [ ! -L "$target" ]; then printf is-a-folder; exit 0; fi',
  'printf ok',
].join('\n');

/** The command that reports what stands in the way of `path` (relative to the workspace), run in `workdir`. */
export function pathCheckCommand(workdir: string, path: string): string[] {
  const parts = path.split('/');
  const prefixes = parts.slice(0, -1).map((_, index) => parts.slice(0, index + 1).join('/'));
  // The workspace is $0, so the script's own arguments start at the target.
  return ['sh', '-c', `cd "$0" || exit 3\n${SCRIPT}`, workdir, path, ...prefixes];
}

/** Reads the check's output; null when nothing is in the way. */
export function parsePathCheck(path: string, stdout: string): WorkspacePathError | null {
  const [verdict, blocker] = stdout.split('\n');
  if (verdict === 'not-a-folder') return workspacePathProblem(path, 'not-a-folder', { blocker });
  if (verdict === 'is-a-folder') return workspacePathProblem(path, 'is-a-folder');
  if (verdict === 'outside-link') return workspacePathProblem(path, 'outside-link', { blocker });
  return null;
}
