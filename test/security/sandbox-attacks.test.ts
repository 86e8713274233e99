import { randomBytes } from 'node:crypto';
import Docker from 'dockerode';
import { afterEach, expect } from 'vitest';
import { DockerSandboxProvider } from '../../src/adapters/docker/docker-sandbox-provider.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import type { SandboxConfigInput } from '../../src/config/sandbox-config.js';
import { ContainerDiedError } from '../../src/errors/index.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { describeWithDocker, TEST_RUNTIME, TEST_SANDBOX } from '../helpers/docker.js';
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
  tryWrites,
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
/** Where runc and gVisor answer differently, each test asserts the answer of the runtime of this pass. */
const GVISOR = TEST_RUNTIME === 'runsc';

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

  /** A sandbox gone as the runtime documents it: not among the containers whose confinement is checked after. */
  async function forget(sandbox: Sandbox): Promise<void> {
    open.splice(
      open.findIndex((entry) => entry.sandbox === sandbox),
      1,
    );
    await sandbox.dispose();
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
      // gVisor's /proc/<pid>/status has no CapAmb or NoNewPrivs line; the su probe below shows
      // no-new-privileges at work under both runtimes.
      ...(GVISOR ? [] : ['CapAmb:\t0000000000000000', 'NoNewPrivs:\t1']),
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
      // find, not ls: gVisor's stat (statx) answers EINVAL, which would hide a socket that is there.
      "find /var/run/docker.sock /run/docker.sock -printf 'found %p\\n' 2>/dev/null; printenv DOCKER_HOST; " +
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

  hostAttack('any route out of the container', 'network none: no route', async () => {
    const sandbox = await openSandbox();
    const result = await sandbox.exec(
      `${python(
        [
          'import errno, socket',
          "for host, port in (('1.1.1.1', 443), ('8.8.8.8', 53), ('169.254.169.254', 80), ('10.0.0.1', 80)):",
          '    try: socket.create_connection((host, port), 2); print(host, "connected")',
          '    except OSError as e: print(host, errno.errorcode.get(e.errno, e))',
          'u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)',
          "try: u.sendto(b'x', ('8.8.8.8', 53)); print('udp sent')",
          'except OSError as e: print("udp", errno.errorcode.get(e.errno, e))',
        ].join('\n'),
      )}awk 'NR > 1' /proc/net/route`,
    );
    // No route at all (the routing table is empty): runc's kernel says ENETUNREACH, gVisor's network stack,
    // with only a loopback, EHOSTUNREACH.
    const unreachable = GVISOR ? 'EHOSTUNREACH' : 'ENETUNREACH';
    expect(lines(result)).toEqual(
      ['1.1.1.1', '8.8.8.8', '169.254.169.254', '10.0.0.1', 'udp'].map((to) => `${to} ${unreachable}`),
    );
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
      'for f in /var/tmp/evil /run/lock/evil /usr/local/bin/evil /etc/evil /evil; do (echo x >> "$f") 2>&1; done\n' +
        "find /var/tmp/evil /run/lock/evil /usr/local/bin/evil /etc/evil /evil -printf 'written %p\\n' 2>/dev/null",
    );
    expect(lines(root)).toHaveLength(5);
    // The world-writable folders: only the read-only root refuses, under both runtimes.
    for (const line of lines(root).slice(0, 2)) expect(line).toMatch(/Read-only file system/);
    // root's own folders: runc checks the mount first, gVisor the folder's owner first; refused either way.
    for (const line of lines(root)) expect(line).toMatch(/Read-only file system|Permission denied/);
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
    const bombing = sandbox.exec('bomb() { bomb | bomb & }; bomb; sleep 20', { timeoutSeconds: 5 });
    if (GVISOR) {
      // gVisor: the pids limit counts the threads of gVisor's kernel itself, so the bomb reaches it inside that
      // kernel, which cannot start a thread and ends the whole sandbox (docs/sandbox.md#gvisor); the host's
      // limit held. The exec ends at once: the container's watch reports it died, or, when gVisor's exec ends
      // first, it reports its kernel's end as exit 128 with runsc's message. The next command is told it died.
      const ended = await bombing.catch((error: unknown) => error);
      if (!(ended instanceof ContainerDiedError))
        expect(ended).toMatchObject({ exitCode: 128, stderr: expect.stringMatching(/waiting on PID/) });
      await docker.getContainer(sandbox.id).wait({ condition: 'not-running' });
      await expect(sandbox.exec('echo alive')).rejects.toBeInstanceOf(ContainerDiedError);
      await forget(sandbox);
      return;
    }
    const bomb = await bombing;
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
    if (TEST_RUNTIME === 'runsc') {
      // gVisor: the host's OOM killer ends the whole sandbox; the exec ended with it (no wait for the time
      // limit): reported as out of memory by the container's watch or, when gVisor's exec ends first, as its
      // kernel's end (exit 128, runsc's message), and the engine records the OOM kill either way. The next
      // command is told the container died (docs/sandbox.md#gvisor).
      if (hog.end !== 'oom-killed')
        expect(hog).toMatchObject({ exitCode: 128, stderr: expect.stringMatching(/waiting on PID/) });
      else expect(hog).toMatchObject({ exitCode: 137, reason: 'killed: out of memory' });
      await docker.getContainer(sandbox.id).wait({ condition: 'not-running' });
      const state = (await docker.getContainer(sandbox.id).inspect()).State;
      expect(state.OOMKilled || state.ExitCode === 137).toBe(true);
      await expect(sandbox.exec('echo recovered')).rejects.toBeInstanceOf(ContainerDiedError);
      await forget(sandbox);
      return;
    }
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
    // gVisor's /proc/sys holds only a few settings of its own kernel (hostname, vm, net): some are listed here.
    const settings = [
      'kernel/core_pattern',
      'kernel/hostname',
      'kernel/pid_max',
      'kernel/sysrq',
      'vm/overcommit_memory',
      'vm/drop_caches',
      'vm/max_map_count',
      'net/ipv4/ip_forward',
      'net/core/somaxconn',
    ];
    const result = await sandbox.exec(
      tryWrites(
        settings.map((file) => `/proc/sys/${file}`),
        '1',
      ),
    );
    expect(lines(result).length).toBeGreaterThanOrEqual(5);
    for (const line of lines(result)) expect(line).toMatch(/^kept /);
  });

  hostAttack('write /sys', '/sys mounted read-only', async () => {
    const sandbox = await openSandbox();
    const mount = await sandbox.exec('awk \'$5 == "/sys" { print $6 }\' /proc/self/mountinfo');
    expect(mount.stdout).toMatch(/^ro(,|$)/);
    // The last two are among the few files gVisor's /sys has.
    const files = [
      '/sys/kernel/mm/transparent_hugepage/enabled',
      '/sys/kernel/profiling',
      '/sys/class/net/lo/mtu',
      '/sys/kernel/uevent_helper',
      '/sys/devices/system/cpu/online',
      '/sys/class/net/lo/gro_flush_timeout',
    ];
    const result = await sandbox.exec(tryWrites(files, '1'));
    expect(lines(result).length).toBeGreaterThan(0);
    for (const line of lines(result)) expect(line).toMatch(/^kept /);
  });

  hostAttack(
    'raise its own limits in the cgroup files',
    'cgroup file systems mounted read-only',
    async () => {
      const sandbox = await openSandbox();
      // The limit files (cgroup.procs lists processes, so reads of it differ by themselves).
      const files = [
        'memory.max',
        'pids.max',
        'memory/memory.limit_in_bytes',
        'memory/memory.memsw.limit_in_bytes',
        'pids/pids.max',
        'cpu/cpu.cfs_quota_us',
        'cpu.max',
      ];
      const result = await sandbox.exec(
        tryWrites(
          files.map((file) => `/sys/fs/cgroup/${file}`),
          'max',
        ),
      );
      if (!GVISOR) {
        expect(lines(result).length).toBeGreaterThan(0);
        for (const line of lines(result)) expect(line).toMatch(/^kept /);
        return;
      }
      // gVisor mounts no cgroup file system in the container: the limits are on the host's cgroup of the whole
      // sandbox, which nothing inside can name (the engine's view of them is checked after every attack).
      expect(result.stdout).toBe('');
      const cgroups = await sandbox.exec(
        "find /sys/fs/cgroup -mindepth 1 -printf '%p\\n'; grep -E ' - cgroup2? ' /proc/self/mountinfo; cat /proc/self/cgroup",
      );
      expect(cgroups.stdout).toBe('');
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
      const after = await sandbox.exec(
        "ps -eo args --no-headers; find /workspace -name 'persiste[d]' -printf '%p\\n'",
      );
      expect(after.stdout).not.toMatch(/persisted/);
      expect(result.stdout).not.toMatch(/opened \/proc\/\d+\/mem|attached|injected/);
      expect(lines(result)).toEqual([
        // gVisor lets any user of the container read init's environment (its procfs does not apply Linux's
        // ptrace-read check to environ): it is the container's own, the one every command gets (below).
        GVISOR ? 'opened /proc/1/environ' : 'refused /proc/1/environ Permission denied',
        'refused /proc/1/mem Permission denied',
        expect.stringMatching(/^refused \/proc\/\d+\/mem Permission denied$/),
        'refused 1 Operation not permitted',
        expect.stringMatching(/^refused \d+ Operation not permitted$/),
      ]);
      if (!GVISOR) return;
      const environ = await sandbox.exec("tr '\\0' '\\n' < /proc/1/environ | grep -v '^HOSTNAME=' | sort");
      const { Config } = await docker.getContainer(sandbox.id).inspect();
      expect(lines(environ)).toEqual([...Config.Env].sort());
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
      // A process of job A that runs while job B looks (a sandbox runs one command at a time).
      // It says when it runs, under its name (the engine's process list cannot tell: under gVisor it shows none
      // of the container's processes).
      const cancel = new AbortController();
      let started = () => {};
      const running$ = new Promise<void>((resolve) => {
        started = resolve;
      });
      const running = first.exec(
        `exec -a ${token}-proc python3 -c "import time; print('running', flush=True); time.sleep(600)"`,
        { signal: cancel.signal, onOutput: (chunk) => chunk.toString().includes('running') && started() },
      );
      await Promise.race([
        running$,
        running.then((result) => expect.fail(`A's process ended: ${result.output}`)),
      ]);
      const volumes = (await docker.getContainer(first.id).inspect()).Mounts.map((mount) => mount.Source);
      expect(volumes.length).toBeGreaterThan(0);
      // [j]ob-… finds the token without matching the command that looks for it.
      const pattern = token.replace(/^j/, '[j]');
      const look = await second.exec(
        `find / \\( -path /proc -o -path /sys \\) -prune -o -name '${pattern}*' -print 2>/dev/null\n` +
          `grep -rls '${pattern}' /workspace /tmp /dev/shm /proc/[0-9]*/cmdline 2>/dev/null\n` +
          `ps -eo args --no-headers | grep -c '${pattern}-proc'\n` +
          `for v in ${volumes.join(' ')}; do (cd "$v" 2>/dev/null) && echo "reached $v"; done`,
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
    // runc: the engine's seccomp profile refuses the calls. gVisor does not apply that profile (its kernel
    // answers every call itself, under its own filter on the host) and refuses them in its own keyring code.
    const refused = GVISOR ? 'Permission denied' : 'Operation not permitted';
    expect(lines(result)).toEqual(
      ['keyctl', 'add_key', 'request_key'].map((call) => `${call} -1 ${refused}`),
    );
  });

  hostAttack('unshare a user namespace (unshare -Ur)', 'seccomp; no CAP_SYS_ADMIN', async () => {
    const sandbox = await openSandbox();
    const result = await sandbox.exec(
      'unshare -Ur id -u; unshare -U id -u; unshare -m id -u; unshare -p -f id -u',
    );
    if (!GVISOR) {
      expect(result.stdout).toBe('');
      expect(result.stderr.match(/Operation not permitted/g)).toHaveLength(4);
      return;
    }
    // gVisor: user namespaces are its own kernel's objects, so unshare -U succeeds; mount and pid namespaces
    // still need a capability the command lacks. Root of that namespace is the sandbox user mapped alone, with
    // capabilities over gVisor's objects in it only: the root file system stays read-only, root's files stay
    // root's, and no host system call is made with those capabilities.
    expect(lines(result)).toEqual(['0', '65534']);
    expect(result.stderr.match(/Operation not permitted/g)).toHaveLength(2);
    const inside = await sandbox.exec(
      'unshare -Ur sh -c \'awk "{ print \\$1, \\$2, \\$3 }" /proc/self/uid_map; echo x > /var/tmp/evil; echo x > /etc/evil\' 2>&1\n' +
        "find /var/tmp/evil /etc/evil -printf 'written %p\\n' 2>/dev/null",
    );
    expect(lines(inside)).toEqual([
      '0 1000 1',
      expect.stringMatching(/\/var\/tmp\/evil: Read-only file system$/),
      expect.stringMatching(/\/etc\/evil: Permission denied$/),
    ]);
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
        "find /tmp/mem /workspace/disk /dev/shm/null /workspace/kmsg -printf '%p\\n' 2>/dev/null | wc -l\n" +
        'head -c 16 /tmp/mem 2>/dev/null | wc -c',
    );
    expect(lines(result)[0]).toBe('PermissionError: [Errno 1] Operation not permitted');
    // The property under both: no node leads to a device of the host (/tmp/mem would be its memory).
    expect(lines(result)[2]).toBe('0');
    if (!GVISOR) {
      expect(result.stderr.match(/Operation not permitted/g)).toHaveLength(3);
      expect(lines(result)[1]).toBe('0');
      return;
    }
    // gVisor's kernel makes nodes on its own memory file systems (/tmp, /dev/shm) without CAP_MKNOD; the
    // workspace (a host folder behind gVisor's file proxy) refuses. A node opens gVisor's own device of that
    // number or none (ENXIO): 1:1, 1:11 and 8:0 have none, 1:3 is gVisor's /dev/null.
    expect(result.stderr.match(/Operation not permitted/g)).toHaveLength(1);
    expect(lines(result)[1]).toBe('2');
    expect((await sandbox.exec('head -c 1 /tmp/mem')).stderr).toMatch(/No such device or address/);
  });
});
