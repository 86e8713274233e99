import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { hostname } from 'node:os';
import type Docker from 'dockerode';
import type { ExecResult } from '../../src/sandbox/sandbox.js';

/** Attack scripts and host-side checks for sandbox-attacks.test.ts. */

/** Host kernel settings an attack might try to change, read on the host itself. */
const HOST_FILES = [
  '/proc/sys/kernel/core_pattern',
  '/proc/sys/kernel/hostname',
  '/proc/sys/kernel/pid_max',
  '/proc/sys/kernel/sysrq',
  '/proc/sys/vm/overcommit_memory',
  '/sys/kernel/mm/transparent_hugepage/enabled',
];

export async function hostState(): Promise<Record<string, string | null>> {
  const files = await Promise.all(HOST_FILES.map((file) => readFile(file, 'utf8').catch(() => null)));
  return {
    hostname: hostname(),
    ...Object.fromEntries(HOST_FILES.map((file, index) => [file, files[index]])),
  };
}

/** What the engine holds about a container's confinement; an attack must not change any of it. */
export async function confinement(docker: Docker, id: string) {
  const { HostConfig, Config, State, Mounts } = await docker.getContainer(id).inspect();
  return {
    running: State.Running,
    user: Config.User,
    privileged: HostConfig.Privileged,
    capAdd: HostConfig.CapAdd,
    capDrop: HostConfig.CapDrop,
    securityOpt: HostConfig.SecurityOpt,
    readonlyRootfs: HostConfig.ReadonlyRootfs,
    networkMode: HostConfig.NetworkMode,
    memory: HostConfig.Memory,
    pidsLimit: HostConfig.PidsLimit,
    devices: HostConfig.Devices,
    mounts: Mounts.map((mount) => ({ type: mount.Type, source: mount.Source, target: mount.Destination })),
  };
}

/** A heredoc, so scripts reach the interpreter as written; ends with a newline, so more commands can follow. */
export const python = (script: string) => `python3 - <<'PYTHON'\n${script}\nPYTHON\n`;

/** Calls each syscall by number (x86-64) and prints `name errno-text` for each. */
export const syscalls = (calls: Record<string, string>) =>
  python(
    [
      'import ctypes, os',
      'libc = ctypes.CDLL(None, use_errno=True)',
      ...Object.entries(calls).map(
        ([name, args]) => `print('${name}', libc.syscall(${args}), os.strerror(ctypes.get_errno()))`,
      ),
    ].join('\n'),
  );

/** Starts detached processes of every kind and ends only once all four run. */
export const DETACH = [
  "setsid bash -c 'exec sleep 301' &",
  "nohup bash -c 'exec sleep 302' >/dev/null 2>&1 &",
  "(bash -c 'exec sleep 303' &)",
  "bash -c 'exec sleep 304' & disown",
  'until [ "$(pgrep -fc \'^sleep 30[1-4]$\')" = 4 ]; do sleep 0.05; done',
  'echo started',
].join('\n');

/**
 * Opens the memory and environment of init and of the container's keeper
 * (`sleep infinity`, the oldest other process: the two every command leaves
 * alone), attaches to both and, where the attach is allowed, makes the
 * keeper exec a loop that writes to the workspace, which would outlive every
 * later command.
 */
export const PTRACE_INJECT = String.raw`
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
libc.ptrace.restype = ctypes.c_long
pids = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())
keeper = next(p for p in pids if p > 1)
def attach(pid):
    if libc.ptrace(16, pid, None, None) != 0:
        print('refused', pid, os.strerror(ctypes.get_errno())); return False
    os.waitpid(pid, 0x40000000); print('attached', pid); return True
for path in ('/proc/1/environ', '/proc/1/mem', f'/proc/{keeper}/mem'):
    try: open(path, 'rb').close(); print('opened', path)
    except OSError as e: print('refused', path, e.strerror)
if attach(1): libc.ptrace(17, 1, None, None)
if attach(keeper):
    regs = (ctypes.c_ulong * 27)()
    libc.ptrace(12, keeper, None, ctypes.byref(regs))
    RAX, RDX, RSI, RDI, ORIG, RIP, RSP = 10, 12, 13, 14, 15, 16, 19
    base = (regs[RSP] - 8192) & ~15
    words = lambda *values: b''.join(v.to_bytes(8, 'little') for v in values)
    script = b'while :; do date >> /workspace/persisted; sleep 1; done\0'
    with open(f'/proc/{keeper}/mem', 'r+b', buffering=0) as mem:
        for at, data in ((base, b'/bin/sh\0'), (base + 16, b'-c\0'), (base + 32, script),
                         (base + 256, words(base, base + 16, base + 32, 0))):
            mem.seek(at); mem.write(data)
    regs[RAX], regs[RDI], regs[RSI], regs[RDX], regs[ORIG] = 59, base, base + 256, 0, 2**64 - 1
    regs[RIP] -= 2
    libc.ptrace(13, keeper, None, ctypes.byref(regs))
    libc.ptrace(17, keeper, None, None)
    print('injected', keeper)
`;

/** Listens on a host loopback port if it is free; counts connections. */
export async function decoy(port: number): Promise<{ server: Server | null; connections: number }> {
  const state = { server: null as Server | null, connections: 0 };
  const server = createServer((socket) => {
    state.connections++;
    socket.end('HTTP/1.1 200 OK\r\n\r\n{"ApiVersion":"1.45"}');
  });
  await new Promise<void>((resolve) => {
    server.once('error', () => resolve());
    server.listen(port, '127.0.0.1', () => {
      state.server = server;
      resolve();
    });
  });
  return state;
}

export function close({ server }: { server: Server | null }): Promise<void> {
  return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
}

export const lines = (result: ExecResult) => result.stdout.trim().split('\n');

/**
 * Tries to write `value` into each file that exists and prints one line per file: `kept <file>` when the write
 * failed and the file reads as before, `wrote` or `changed` otherwise. The security property itself (nothing
 * written), not the error text, which differs between runc's kernel and gVisor's.
 */
export const tryWrites = (files: string[], value: string) =>
  `for f in ${files.join(' ')}; do [ -e "$f" ] || continue; before=$(cat "$f" 2>/dev/null); ` +
  `if (echo ${value} > "$f") 2>/dev/null; then echo "wrote $f"; ` +
  `elif [ "$(cat "$f" 2>/dev/null)" = "$before" ]; then echo "kept $f"; else echo "changed $f"; fi; done\n`;
