// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these are bash scripts, and ${…} is bash parameter expansion
/**
 * What a command left that is not in its process group (`setsid`, `nohup`,
 * a double fork, `disown`) goes too, before the command's result is
 * returned: every process but init, the container's own `sleep` (the
 * oldest one left, so the lowest pid), this wrapper, and the other execs the
 * engine runs beside it at that moment (a file read or write, a kill: they
 * run as the same user). First stopped, so a fork bomb cannot refill the
 * slots the kills free, then killed. Builtins only, over /proc: the pids
 * limit may be used up. Root's processes are out of reach of `kill` here,
 * and none are the command's.
 *
 * Another exec is told apart by its line of parents, which a process cannot
 * choose: the engine enters an exec into the container from outside, so its
 * first process has parent 0, under runc and gVisor alike. What a command
 * started leads up to this wrapper, or to init once its parent is gone
 * (orphans are handed to init), never to another exec. Each round keeps
 * what it learnt of a process's line (`line`), so it reads each once.
 */
const SWEEP = [
  'keep=0',
  'for d in /proc/[0-9]*; do p=${d#/proc/}; ((p > 1 && (keep == 0 || p < keep))) && keep=$p; done',
  'declare -A line',
  // Succeeds when process $1 descends from another exec (its line of parents ends at parent 0, not here).
  'other_exec() {',
  '  local q=$1 up stat verdict=0 walked=()',
  '  while ((q > 1 && q != $$)); do',
  '    [[ -n ${line[$q]} ]] && { verdict=${line[$q]}; break; }',
  '    walked+=("$q")',
  '    read -r stat < "/proc/$q/stat" 2>/dev/null || break',
  '    up=${stat##*) }; up=${up#* }; up=${up%% *}',
  '    ((up == 0)) && { verdict=1; break; }',
  '    q=$up',
  '  done',
  '  for q in "${walked[@]}"; do line[$q]=$verdict; done',
  '  ((verdict))',
  '}',
  'signal_all() {',
  '  found=0; line=()',
  '  for d in /proc/[0-9]*; do',
  '    p=${d#/proc/}',
  '    ((p == 1 || p == keep || p == $$)) && continue',
  '    read -r stat < "$d/stat" 2>/dev/null || continue',
  '    state=${stat##*) }; state=${state%% *}',
  '    [[ $state == Z || ($1 == STOP && $state == [Tt]) ]] && continue',
  '    other_exec "$p" && continue',
  '    kill -"$1" "$p" 2>/dev/null && found=1',
  '  done',
  '}',
  '{',
  '  for ((round = 0; round < 100; round++)); do signal_all STOP; ((found)) || break; done',
  '  for ((round = 0; round < 100; round++)); do signal_all KILL; ((found)) || break; done',
  '} 2>/dev/null',
].join('\n');

/**
 * Every command runs under a small bash wrapper that puts it in a process
 * group of its own (job control, `set -m`) and writes that group's id to a
 * file. A timeout or cancellation then kills the whole tree with one
 * `kill -KILL -- -<pgid>` from a second exec, and the container itself keeps
 * running for the next command. When the command ends, whatever it left in
 * the background is killed too, detached or not, so no command outlives its
 * result.
 *
 * The command runs in a forked subshell through `eval`, not in a second
 * bash: a second bash costs a fork and an exec on every command, and the
 * wrapper is most of what a command costs beyond the engine's own exec. It
 * is on the script's first line so that the command's error messages count
 * lines as `bash -c` would ("bash: line 2: foo: command not found"), and it
 * clears the positional parameters first, as `bash -c COMMAND` starts with
 * none. Only a syntax error reads differently ("bash: eval: line 1:" for
 * "bash: -c: line 1:").
 *
 * Docker's exec API has no kill of its own, hence this indirection.
 */
const RUN_SCRIPT = [
  // The wrapper's own stderr goes at once: with job control on, bash reports a finished job ("[1]- Done")
  // there whenever it next runs something, and a quick command finishes before any later line. The
  // command keeps the stderr the exec started with (fd 3, closed for everything else).
  'exec 3>&2 2>/dev/null; set -m; ( eval "set --; $1" ) 2>&3 3>&- & child=$!',
  'echo "$child" > "$2"',
  // A backstop a second after the caller's own limit: its kill comes from a second exec, which a
  // command that used up the pids limit can keep from starting. Forked now, while there is room. It
  // waits with `read -t` on a fifo nobody writes to, a builtin, so it costs no `sleep` process; if the
  // fifo is gone or written to, `sleep` takes over.
  '( [[ -p $4 ]] || mkfifo -m 600 "$4"; read -rt "$3" <> "$4"; (($? > 128)) || sleep "$3"; kill -KILL -- "-$child" ) 3>&- & backstop=$!',
  // Job control was for the process groups only.
  'set +m',
  'wait "$child"; code=$?',
  // The backstop first, by its own group: the sweep then finds only what the command left.
  'kill -KILL -- "-$child" "-$backstop" 2>/dev/null',
  SWEEP,
  'exit "$code"',
].join('\n');

/** Where the backstop waits; in the container's /tmp, made by the first command. */
const WAIT_FIFO = '/tmp/.selfdebug-wait';

/** Waits briefly for the pid file (the command may have just started), then kills its group. */
const KILL_SCRIPT = [
  // Builtins only where it matters: a command that used up the pids limit leaves no room to fork.
  'for ((i = 0; i < 100; i++)); do [ -s "$1" ] && break; sleep 0.02; done',
  'read -r pgid < "$1"; [ -n "$pgid" ] && kill -KILL -- "-$pgid" 2>/dev/null',
  'exit 0',
].join('\n');

export function runCommand(pidFile: string, command: string, timeoutSeconds: number): string[] {
  const backstop = String(Math.ceil(timeoutSeconds) + 1);
  // $0 is `bash`: the command's messages start with it, as under `bash -c`.
  return ['bash', '-c', RUN_SCRIPT, 'bash', command, pidFile, backstop, WAIT_FIFO];
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
