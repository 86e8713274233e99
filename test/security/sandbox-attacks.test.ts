import { randomBytes } from 'node:crypto';
import Docker from 'dockerode';
import { afterEach, expect } from 'vitest';
import { DockerSandboxProvider } from '../../src/adapters/docker/docker-sandbox-provider.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import type { SandboxConfigInput } from '../../src/config/sandbox-config.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { describeWithDocker, TEST_SANDBOX } from '../helpers/docker.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { attackSuite } from './attack-table.js';
import {
  close,
  confinement,
  DETACH,
  decoy,
  hostState,
  lines,
  PTRACE_INJECT,
  python,
  syscalls,
} from './sandbox-probes.js';

/**
 * Code the model wrote, run as the sandbox runs it (`sandbox.exec`) on the
 * real engine with the default settings, trying to get out or to outlast its
 * command. Each test passes only if the attack failed and the host (its
 * kernel settings, the container's confinement as the engine holds it) is
 * what it was before.
 */

const docker = new Docker();
const TIMEOUT = 120_000;

describeWithDocker('sandbox attacks (real engine, default settings)', () => {
  const attack = attackSuite('sandbox');
  const tempDir = useTempDirs();
  const open: { sandbox: Sandbox; confined: Awaited<ReturnType<typeof confinement>> }[] = [];

  afterEach(async () => {
    await Promise.all(open.splice(0).map(({ sandbox }) => sandbox.dispose()));
  });

  async function openSandbox(overrides: SandboxConfigInput = {}, jobId = `attack-${Date.now()}`) {
    const provider = new DockerSandboxProvider(parseSandboxConfig({ ...TEST_SANDBOX, ...overrides }), docker);
    const sandbox = await provider.open({ jobId, workspace: await tempDir() });
    open.push({ sandbox, confined: await confinement(docker, sandbox.id) });
    return sandbox;
  }

  /** An attack whose test also proves the host and every container's confinement unchanged. */
  function hostAttack(name: string, by: string, body: () => Promise<void>): void {
    attack(
      name,
      by,
      async () => {
        const before = await hostState();
        await body();
        expect(await hostState()).toEqual(before);
        for (const { sandbox, confined } of open) {
          expect(await confinement(docker, sandbox.id)).toEqual(confined);
          expect((await sandbox.exec('echo usable')).stdout).toBe('usable\n');
        }
      },
      TIMEOUT,
    );
  }

  hostAttack('become root or use a capability', 'non-root user, CapDrop ALL, no-new-privileges', async () => {
    const sandbox = await openSandbox();
    const self = await sandbox.exec(
      "id -u; grep -E '^(CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs)' /proc/self/status",
    );
    expect(lines(self)).toEqual([
      '1000',
      'CapPrm:\t0000000000000000',
      'CapEff:\t0000000000000000',
      'CapBnd:\t0000000000000000',
      'CapAmb:\t0000000000000000',
      'NoNewPrivs:\t1',
    ]);
    // su is setuid root in the image: with no-new-privileges it runs with the caller's ids and no capability.
    const setuid = await sandbox.exec(
      python(
        [
          'import os, subprocess, time',
          'r, w = os.pipe()',
          "su = subprocess.Popen(['su', 'root', '-c', 'id'], stdin=r, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)",
          "while os.readlink(f'/proc/{su.pid}/exe') != '/usr/bin/su': time.sleep(0.01)",
          "print(''.join(l for l in open(f'/proc/{su.pid}/status') if l.startswith(('Uid', 'CapEff'))), end='')",
          'su.kill()',
        ].join('\n'),
      ),
    );
    expect(lines(setuid)).toEqual(['Uid:\t1000\t1000\t1000\t1000', 'CapEff:\t0000000000000000']);
    const setpriv = await sandbox.exec('setpriv --reuid=0 --regid=0 --clear-groups id -u');
    expect(setpriv.exitCode).not.toBe(0);
    expect(setpriv.stdout).not.toMatch(/^0$/m);
  });

  hostAttack(
    'read host secrets from the environment',
    'the container gets only HOME, LANG and the image PATH',
    async () => {
      const secret = `fake-${randomBytes(12).toString('hex')}`;
      process.env.SELFDEBUG_FAKE_SECRET = secret;
      try {
        const sandbox = await openSandbox();
        const result = await sandbox.exec("env; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'");
        expect(result.exitCode).toBe(0);
        expect(result.stdout).toContain('HOME=/tmp');
        expect(result.output).not.toContain(secret);
        expect(result.output).not.toContain('SELFDEBUG_FAKE_SECRET');
      } finally {
        delete process.env.SELFDEBUG_FAKE_SECRET;
      }
    },
  );

  hostAttack('reach the Docker engine socket', 'no socket mounted', async () => {
    const sandbox = await openSandbox();
    const result = await sandbox.exec(
      'ls -l /var/run/docker.sock /run/docker.sock; printenv DOCKER_HOST; ' +
        'find / \\( -path /proc -o -path /sys \\) -prune -o -type s -print 2>/dev/null; ' +
        python(
          [
            'import socket',
            's = socket.socket(socket.AF_UNIX)',
            "try: s.connect('/var/run/docker.sock'); print('connected')",
            'except OSError as e: print(type(e).__name__)',
          ].join('\n'),
        ),
    );
    expect(result.stderr).toMatch(/docker\.sock': No such file or directory/);
    expect(result.stdout).toBe('FileNotFoundError\n');
  });

  hostAttack('the engine API over TCP on the host loopback', 'network none: own loopback only', async () => {
    const decoys = [await decoy(2375), await decoy(2376)];
    try {
      const sandbox = await openSandbox();
      const result = await sandbox.exec(
        python(
          [
            'import socket',
            'for port in (2375, 2376):',
            "    try: socket.create_connection(('127.0.0.1', port), 2).sendall(b'GET /version HTTP/1.0\\r\\n\\r\\n'); print('connected', port)",
            '    except OSError as e: print(port, type(e).__name__)',
          ].join('\n'),
        ),
      );
      expect(lines(result)).toEqual(['2375 ConnectionRefusedError', '2376 ConnectionRefusedError']);
      expect(decoys.map((one) => one.connections)).toEqual([0, 0]);
    } finally {
      await Promise.all(decoys.map(close));
    }
  });

  hostAttack('any route out of the container', 'network none: no route (ENETUNREACH)', async () => {
    const sandbox = await openSandbox();
    const result = await sandbox.exec(
      `${python(
        [
          'import socket',
          "for host, port in (('1.1.1.1', 443), ('8.8.8.8', 53), ('169.254.169.254', 80), ('10.0.0.1', 80)):",
          '    try: socket.create_connection((host, port), 2); print(host, "connected")',
          '    except OSError as e: print(host, e.strerror)',
          'u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)',
          "try: u.sendto(b'x', ('8.8.8.8', 53)); print('udp sent')",
          'except OSError as e: print("udp", e.strerror)',
        ].join('\n'),
      )}awk 'NR > 1' /proc/net/route`,
    );
    expect(lines(result)).toEqual([
      '1.1.1.1 Network is unreachable',
      '8.8.8.8 Network is unreachable',
      '169.254.169.254 Network is unreachable',
      '10.0.0.1 Network is unreachable',
      'udp Network is unreachable',
    ]);
  });

  hostAttack(
    'reach the host over the network (only loopback exists)',
    'network none: loopback only',
    async () => {
      const server = await decoy(0);
      try {
        const port = (server.server!.address() as { port: number }).port;
        const sandbox = await openSandbox();
        const interfaces = await sandbox.exec('awk \'NR > 2 { sub(":", "", $1); print $1 }\' /proc/net/dev');
        expect(lines(interfaces)).toEqual(['lo']);
        const connect = await sandbox.exec(
          `python3 -c "import socket; socket.create_connection(('127.0.0.1', ${port}), 2); print('connected')"`,
        );
        expect(connect.exitCode).not.toBe(0);
        expect(connect.stderr).toMatch(/ConnectionRefusedError/);
        expect(connect.stdout).not.toContain('connected');
        expect(server.connections).toBe(0);
      } finally {
        await close(server);
      }
    },
  );

  hostAttack('write the read-only root', 'ReadonlyRootfs', async () => {
    const sandbox = await openSandbox();
    const root = await sandbox.exec(
      // World-writable folders of the image first: only the read-only root stops these.
      'for f in /var/tmp/evil /run/lock/evil /usr/local/bin/evil /etc/evil /evil; do (echo x >> "$f") 2>&1; done',
    );
    expect(lines(root)).toHaveLength(5);
    for (const line of lines(root)) expect(line).toMatch(/Read-only file system/);
    const writable = await sandbox.exec('touch /workspace/ok /tmp/ok && echo writable');
    expect(writable.stdout).toBe('writable\n');
  });

  hostAttack('mount a file system', 'no CAP_SYS_ADMIN; seccomp', async () => {
    const sandbox = await openSandbox();
    const before = await sandbox.exec('cat /proc/self/mountinfo');
    const result = await sandbox.exec(
      'mkdir -p /tmp/t /tmp/p; mount -t tmpfs none /tmp/t; echo "tmpfs $?"; mount -t proc proc /tmp/p; echo "proc $?"; ' +
        'mount -o remount,rw /; echo "remount $?"; ' +
        syscalls({ mount: "165, b'none', b'/tmp/t', b'tmpfs', 0, 0" }),
    );
    expect(result.stdout).toBe('tmpfs 32\nproc 32\nremount 32\nmount -1 Operation not permitted\n');
    expect(result.stderr).toMatch(/must be superuser/);
    expect((await sandbox.exec('cat /proc/self/mountinfo')).stdout).toBe(before.stdout);
  });

  hostAttack(
    'run past its timeout, ignoring signals',
    'process group killed (SIGKILL) at the timeout',
    async () => {
      const sandbox = await openSandbox();
      const result = await sandbox.exec("trap '' TERM INT HUP; echo started; while :; do :; done", {
        timeoutSeconds: 2,
      });
      expect(result).toMatchObject({ exitCode: 124, end: 'timed-out', stdout: 'started\n' });
      const left = await sandbox.exec('ps -eo args --no-headers');
      expect(left.stdout).not.toMatch(/trap/);
    },
  );

  hostAttack('fork bomb, then a normal command', 'pids limit; the sweep after the command', async () => {
    const sandbox = await openSandbox({ pidsLimit: 64 });
    const bomb = await sandbox.exec('bomb() { bomb | bomb & }; bomb; sleep 20', { timeoutSeconds: 5 });
    expect(bomb.exitCode).toBe(124);
    expect(bomb.output).toMatch(/Resource temporarily unavailable/);
    const after = await sandbox.exec('echo alive; ps -eo args --no-headers');
    expect(lines(after)[0]).toBe('alive');
    expect(after.stdout).not.toMatch(/bomb/);
  });

  hostAttack('hog memory', 'memory limit; reported as oom-killed', async () => {
    // The workspace's tmpfs is charged to the container's memory (its size is added to the limit): a small one
    // keeps the hog quick.
    const sandbox = await openSandbox({ memoryMb: 64, workspaceMb: 16 });
    const hog = await sandbox.exec(python('chunks = []\nwhile True: chunks.append(b"x" * (64 << 20))'));
    expect(hog).toMatchObject({ exitCode: 137, end: 'oom-killed', reason: 'killed: out of memory' });
    expect(await sandbox.exec('echo recovered')).toMatchObject({ exitCode: 0, stdout: 'recovered\n' });
    // Only that command is reported as out of memory: a later kill -9 is an ordinary exit.
    expect(await sandbox.exec('kill -9 $$')).toMatchObject({ exitCode: 137, end: 'exited', reason: null });
  });

  hostAttack('fill /tmp', 'sized tmpfs (ENOSPC)', async () => {
    const sandbox = await openSandbox({ tmpSizeMb: 8 });
    const fill = await sandbox.exec('head -c 32M /dev/zero > /tmp/fill');
    expect(fill.exitCode).not.toBe(0);
    expect(fill.stderr).toMatch(/No space left on device/);
    const size = await sandbox.exec(
      "du -m /tmp/fill | cut -f1; df -m --output=size /tmp | tail -1 | tr -d ' '",
    );
    expect(lines(size)).toEqual(['8', '8']);
    expect((await sandbox.exec('rm /tmp/fill && echo ok > /tmp/small && cat /tmp/small')).stdout).toBe(
      'ok\n',
    );
  });

  hostAttack('processes left running by a command that exits', 'the sweep after every command', async () => {
    const sandbox = await openSandbox();
    const started = await sandbox.exec(DETACH);
    expect(started).toMatchObject({ exitCode: 0, stdout: 'started\n' });
    const left = await sandbox.exec('ps -eo args --no-headers');
    expect(left.stdout).not.toMatch(/sleep 30[1-4]/);
  });

  hostAttack(
    'processes left running by a command that times out',
    'the sweep after every command',
    async () => {
      const sandbox = await openSandbox();
      const timedOut = await sandbox.exec(`${DETACH}\nsleep 600`, { timeoutSeconds: 8 });
      expect(timedOut).toMatchObject({ exitCode: 124, end: 'timed-out', stdout: 'started\n' });
      const left = await sandbox.exec('ps -eo args --no-headers');
      expect(left.stdout).not.toMatch(/sleep 30[1-4]|sleep 600/);
    },
  );

  hostAttack('write kernel settings in /proc/sys', '/proc/sys mounted read-only', async () => {
    const sandbox = await openSandbox();
    const result = await sandbox.exec(
      'for f in kernel/core_pattern kernel/hostname kernel/pid_max kernel/sysrq vm/overcommit_memory vm/drop_caches; do ' +
        '[ -e "/proc/sys/$f" ] && { (echo 1 > "/proc/sys/$f") 2>&1 || true; }; done',
    );
    expect(lines(result).length).toBeGreaterThanOrEqual(4);
    for (const line of lines(result)) expect(line).toMatch(/Read-only file system/);
  });

  hostAttack('write /sys', '/sys mounted read-only', async () => {
    const sandbox = await openSandbox();
    const result = await sandbox.exec(
      'for f in /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/profiling /sys/class/net/lo/mtu ' +
        '/sys/kernel/uevent_helper; do [ -e "$f" ] && { (echo 1 > "$f") 2>&1 || true; }; done',
    );
    expect(lines(result).length).toBeGreaterThan(0);
    for (const line of lines(result)) expect(line).toMatch(/Read-only file system|Permission denied/);
  });

  hostAttack(
    'raise its own limits in the cgroup files',
    'cgroup file systems mounted read-only',
    async () => {
      const sandbox = await openSandbox();
      const limits =
        'cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids.max /sys/fs/cgroup/memory/memory.limit_in_bytes ' +
        '/sys/fs/cgroup/pids/pids.max 2>/dev/null';
      const before = await sandbox.exec(limits);
      expect(before.stdout).not.toBe('');
      const result = await sandbox.exec(
        'for f in memory.max pids.max cgroup.procs memory/memory.limit_in_bytes memory/memory.memsw.limit_in_bytes ' +
          'pids/pids.max pids/cgroup.procs cpu/cpu.cfs_quota_us cpu.max; do ' +
          '[ -e "/sys/fs/cgroup/$f" ] && { (echo max > "/sys/fs/cgroup/$f") 2>&1 || true; }; done',
      );
      expect(lines(result).length).toBeGreaterThan(0);
      for (const line of lines(result)) expect(line).toMatch(/Read-only file system|Permission denied/);
      expect((await sandbox.exec(limits)).stdout).toBe(before.stdout);
    },
  );

  hostAttack('trigger the kernel through /proc/sysrq-trigger', 'masked or read-only', async () => {
    const sandbox = await openSandbox();
    const result = await sandbox.exec('(echo h > /proc/sysrq-trigger) 2>&1; echo "exit $?"');
    expect(result.stdout).toMatch(
      /(Read-only file system|No such file or directory|Permission denied)\nexit 1\n$/,
    );
  });

  hostAttack(
    'ptrace init or the container keeper to outlive its command',
    'init and the keeper run as another uid than the commands (nobody)',
    async () => {
      const sandbox = await openSandbox();
      const result = await sandbox.exec(python(PTRACE_INJECT));
      const after = await sandbox.exec('ps -eo args --no-headers; ls /workspace');
      expect(after.stdout).not.toMatch(/persisted/);
      expect(result.stdout).not.toMatch(/opened|attached|injected/);
      expect(lines(result)).toEqual([
        'refused /proc/1/environ Permission denied',
        'refused /proc/1/mem Permission denied',
        expect.stringMatching(/^refused \/proc\/\d+\/mem Permission denied$/),
        'refused 1 Operation not permitted',
        expect.stringMatching(/^refused \d+ Operation not permitted$/),
      ]);
    },
  );

  hostAttack(
    "read another job's files or see its processes",
    'one container and one workspace per job',
    async () => {
      const token = `job-a-${randomBytes(8).toString('hex')}`;
      const first = await openSandbox({}, 'attack-job-a');
      const second = await openSandbox({}, 'attack-job-b');
      expect(
        (await first.exec(`echo ${token} > /workspace/${token}; echo ${token} > /tmp/${token}`)).exitCode,
      ).toBe(0);
      // A process of job A that runs while job B looks (a second command in A would sweep it away).
      const cancel = new AbortController();
      const running = first.exec(`exec -a ${token}-proc sleep 600`, { signal: cancel.signal });
      const inA = async () =>
        JSON.stringify(await docker.getContainer(first.id).top({ ps_args: '-eo pid,args' }));
      for (let tries = 0; !(await inA()).includes(`${token}-proc`); tries++) expect(tries).toBeLessThan(500);
      const volumes = (await docker.getContainer(first.id).inspect()).Mounts.map((mount) => mount.Source);
      expect(volumes.length).toBeGreaterThan(0);
      // [j]ob-… finds the token without matching the command that looks for it.
      const pattern = token.replace(/^j/, '[j]');
      const look = await second.exec(
        `find / \\( -path /proc -o -path /sys \\) -prune -o -name '${pattern}*' -print 2>/dev/null\n` +
          `grep -rls '${pattern}' /workspace /tmp /dev/shm /proc/[0-9]*/cmdline 2>/dev/null\n` +
          `ps -eo args --no-headers | grep -c '${pattern}-proc'\n` +
          `for v in ${volumes.join(' ')}; do ls "$v" >/dev/null 2>&1 && echo "reached $v"; done`,
      );
      cancel.abort();
      expect((await running).end).toBe('cancelled');
      expect(look.stdout).toBe('0\n');
      const mounts = await Promise.all(
        [first, second].map(async (sandbox) => (await docker.getContainer(sandbox.id).inspect()).Mounts),
      );
      for (const list of mounts) expect(list.map((mount) => mount.Type)).not.toContain('bind');
      const [sourcesA, sourcesB] = mounts.map((list) => list.map((mount) => mount.Source));
      expect(sourcesA?.filter((source) => sourcesB?.includes(source))).toEqual([]);
    },
  );

  hostAttack('use the kernel keyring', 'seccomp; /proc/keys masked', async () => {
    const sandbox = await openSandbox();
    const result = await sandbox.exec(
      `${syscalls({
        keyctl: '250, 1, 0',
        add_key: "248, b'user', b'selfdebug', b'secret', 1, -3",
        request_key: "249, b'user', b'selfdebug', 0, 0",
      })}cat /proc/keys`,
    );
    expect(lines(result)).toEqual([
      'keyctl -1 Operation not permitted',
      'add_key -1 Operation not permitted',
      'request_key -1 Operation not permitted',
    ]);
  });

  hostAttack('unshare a user namespace (unshare -Ur)', 'seccomp; no CAP_SYS_ADMIN', async () => {
    const sandbox = await openSandbox();
    const result = await sandbox.exec(
      'unshare -Ur id -u; unshare -U id -u; unshare -m id -u; unshare -p -f id -u',
    );
    expect(result.stdout).toBe('');
    expect(result.stderr.match(/Operation not permitted/g)).toHaveLength(4);
  });

  hostAttack('load or remove a kernel module', 'seccomp; no CAP_SYS_MODULE', async () => {
    const sandbox = await openSandbox();
    const result = await sandbox.exec(
      syscalls({
        init_module: "175, 0, 0, b''",
        finit_module: "313, 0, b'', 0",
        delete_module: "176, b'ext4', 0",
      }),
    );
    expect(lines(result)).toEqual([
      'init_module -1 Operation not permitted',
      'finit_module -1 Operation not permitted',
      'delete_module -1 Operation not permitted',
    ]);
  });

  hostAttack('change the clock', 'seccomp; no CAP_SYS_TIME', async () => {
    const sandbox = await openSandbox();
    const result = await sandbox.exec(
      // Setting the time it already is: harmless even if it were allowed.
      `date -s "@$(date +%s)" >/dev/null; echo "date $?"\n` +
        python(
          [
            'import ctypes, os, time',
            'libc = ctypes.CDLL(None, use_errno=True)',
            'try: time.clock_settime(time.CLOCK_REALTIME, time.time()); print("clock_settime set")',
            'except OSError as e: print("clock_settime", e.strerror)',
            'now = (ctypes.c_long * 2)(int(time.time()), 0)',
            'print("settimeofday", libc.settimeofday(now, None), os.strerror(ctypes.get_errno()))',
          ].join('\n'),
        ) +
        'date -u +%Y',
    );
    expect(lines(result)).toEqual([
      'date 1',
      'clock_settime Operation not permitted',
      'settimeofday -1 Operation not permitted',
      String(new Date().getUTCFullYear()),
    ]);
    expect(result.stderr).toMatch(/cannot set date: Operation not permitted/);
  });

  hostAttack('create a device node (mknod)', 'no CAP_MKNOD; nodev mounts', async () => {
    const sandbox = await openSandbox();
    const result = await sandbox.exec(
      'mknod /tmp/mem c 1 1; mknod /workspace/disk b 8 0; mknod /dev/shm/null c 1 3; ' +
        'python3 -c "import os, stat; os.mknod(\'/workspace/kmsg\', stat.S_IFCHR | 0o666, os.makedev(1, 11))" 2>&1 | tail -1; ' +
        'ls /tmp/mem /workspace/disk /dev/shm/null /workspace/kmsg 2>&1 | grep -vc "No such file"',
    );
    expect(result.stderr.match(/Operation not permitted/g)).toHaveLength(3);
    expect(lines(result)).toEqual(['PermissionError: [Errno 1] Operation not permitted', '0']);
  });
});
