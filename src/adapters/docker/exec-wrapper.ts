/**
 * Every command runs under a small bash wrapper that puts it in a process
 * group of its own (job control, `set -m`) and writes that group's id to a
 * file. A timeout or cancellation then kills the whole tree with one
 * `kill -KILL -- -<pgid>` from a second exec, and the container itself keeps
 * running for the next command. When the command ends, whatever it left in
 * the background is killed too, so no command outlives its result.
 *
 * Docker's exec API has no kill of its own, hence this indirection.
 */
const RUN_SCRIPT = [
  'set -m',
  'bash -c "$2" &',
  'child=$!',
  'echo "$child" > "$1"',
  '{ wait "$child"; } 2>/dev/null; code=$?',
  'kill -KILL -- "-$child" 2>/dev/null',
  'exit "$code"',
].join('\n');

/** Waits briefly for the pid file (the command may have just started), then kills its group. */
const KILL_SCRIPT = [
  // Builtins only where it matters: a command that used up the pids limit leaves no room to fork.
  'for ((i = 0; i < 100; i++)); do [ -s "$1" ] && break; sleep 0.02; done',
  'read -r pgid < "$1"; [ -n "$pgid" ] && kill -KILL -- "-$pgid" 2>/dev/null',
  'exit 0',
].join('\n');

export function runCommand(pidFile: string, command: string): string[] {
  return ['bash', '-c', RUN_SCRIPT, 'selfdebug-exec', pidFile, command];
}

export function killCommand(pidFile: string): string[] {
  return ['bash', '-c', KILL_SCRIPT, 'selfdebug-kill', pidFile];
}

/** Reads the container's OOM-kill counter (cgroup v2, then v1); prints nothing if neither exists. */
export const OOM_COUNTER_COMMAND = [
  'bash',
  '-c',
  'cat /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control 2>/dev/null | ' +
    'awk \'$1 == "oom_kill" { print $2; exit }\'',
];

export function parseOomCount(text: string): number | null {
  const value = Number.parseInt(text.trim(), 10);
  return Number.isFinite(value) ? value : null;
}
