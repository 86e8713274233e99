import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WorkspacePathError } from '../../src/errors/index.js';
import type { ExecResult, Sandbox, SandboxProvider } from '../../src/sandbox/sandbox.js';
import { withSandbox } from '../../src/sandbox/with-sandbox.js';
import type { ManualTimers } from '../helpers/manual-timers.js';
import { useTempDirs } from '../helpers/temp-dir.js';

export interface ContractSubject {
  name: string;
  provider: () => SandboxProvider;
  /** Whether the engine still holds anything of the sandbox with this id. */
  exists: (sandboxId: string) => Promise<boolean>;
  /**
   * The timers the provider's sandboxes take their time limits from, where
   * the test can give them: a time limit then passes when the test says so,
   * once the command is seen running. Without them (Docker) it is real time.
   */
  timers?: ManualTimers;
}

/**
 * What every Sandbox adapter promises. Isolation (network, user, limits) is
 * not part of it: only a container can promise that, so those tests live in
 * the Docker adapter's own suite.
 */
export function sandboxContract(subject: ContractSubject): void {
  describe(`Sandbox contract: ${subject.name}`, () => {
    const tempDir = useTempDirs();
    const open: Sandbox[] = [];
    let opened = 0;

    afterEach(async () => {
      await Promise.all(open.splice(0).map((sandbox) => sandbox.dispose()));
    });

    async function openWith(files: Record<string, string> = {}): Promise<{ sandbox: Sandbox; host: string }> {
      const host = await tempDir();
      for (const [path, content] of Object.entries(files)) {
        await mkdir(join(host, path, '..'), { recursive: true });
        await writeFile(join(host, path), content);
      }
      const sandbox = await subject.provider().open({ jobId: `contract-${++opened}`, workspace: host });
      open.push(sandbox);
      return { sandbox, host };
    }

    it('reports exit codes and keeps stdout and stderr apart and in order', async () => {
      const { sandbox } = await openWith();
      const ok = await sandbox.exec('true');
      expect(ok).toMatchObject({ exitCode: 0, end: 'exited', reason: null, truncated: false });
      // Each line waits at a gate the test opens once it has seen the line before written: the order is
      // the test's, not the scheduler's, and no sleep guesses how long the engine takes to pass a line on.
      const running = sandbox.exec(
        `echo out1; touch .wrote-1; ${waitAt('.gate-1')}; echo err1 >&2; touch .wrote-2; ${waitAt('.gate-2')}; ` +
          'echo out2; exit 3',
      );
      await seen(sandbox, '.wrote-1');
      await openGate(sandbox, '.gate-1');
      await seen(sandbox, '.wrote-2');
      await openGate(sandbox, '.gate-2');
      const failed = await running;
      expect(failed.exitCode).toBe(3);
      expect(failed.stdout).toBe('out1\nout2\n');
      expect(failed.stderr).toBe('err1\n');
      expect(failed.output).toBe('out1\nerr1\nout2\n');
      expectDuration(failed);
    });

    it('runs a command as `bash -c` would: no arguments, and errors name the line they are on', async () => {
      const { sandbox } = await openWith();
      const result = await sandbox.exec('echo "args=$# name=$0"\nno-such-command-here\nexit 5');
      expect(result.exitCode).toBe(5);
      expect(result.stdout).toBe('args=0 name=bash\n');
      expect(result.stderr).toBe('bash: line 2: no-such-command-here: command not found\n');
    });

    it('passes the requested environment and working directory, and nothing of the host', async () => {
      process.env.SELFDEBUG_CONTRACT_SECRET = 'host-secret';
      try {
        const { sandbox } = await openWith({ 'sub/marker.txt': 'here' });
        const result = await sandbox.exec(
          'echo "$FOO"; (printenv SELFDEBUG_CONTRACT_SECRET || echo unset); cat marker.txt',
          {
            env: { FOO: 'bar' },
            cwd: 'sub',
          },
        );
        expect(result.stdout).toBe('bar\nunset\nhere');
      } finally {
        delete process.env.SELFDEBUG_CONTRACT_SECRET;
      }
    });

    it('times out with exit code 124, kills the whole process tree, and stays usable', async () => {
      const { sandbox } = await openWith();
      const marker = `sleep 3${Math.floor(Math.random() * 1000) + 1000}`;
      const running = sandbox.exec(`(${marker} &); ${marker} & echo started; touch .running; wait`, {
        timeoutSeconds: 1,
      });
      if (subject.timers) {
        // The second passes once the command is seen running, however long this machine took to start it.
        await seenRunning(sandbox);
        subject.timers.advance(1000);
      }
      const result = await running;
      expect(result.exitCode).toBe(124);
      expect(result.end).toBe('timed-out');
      expect(result.reason).toBe('timed out after 1 s');
      expect(result.stdout).toBe('started\n');
      expectDuration(result);
      const survivors = await sandbox.exec(`ps -eo args | grep -c '^${marker}$' || true`);
      expect(survivors.stdout.trim()).toBe('0');
      const next = await sandbox.exec('echo still here');
      expect(next).toMatchObject({ exitCode: 0, stdout: 'still here\n' });
    });

    it('kills background processes a command leaves behind when it ends', async () => {
      const { sandbox } = await openWith();
      const marker = `sleep 4${Math.floor(Math.random() * 1000) + 1000}`;
      const result = await sandbox.exec(`${marker} > /dev/null 2>&1 & echo left`);
      expect(result).toMatchObject({ exitCode: 0, stdout: 'left\n' });
      const survivors = await sandbox.exec(`ps -eo args | grep -c '^${marker}$' || true`);
      expect(survivors.stdout.trim()).toBe('0');
    });

    it('cancels through an AbortSignal like a timeout, and stays usable', async () => {
      const { sandbox } = await openWith();
      const controller = new AbortController();
      const marker = `sleep 5${Math.floor(Math.random() * 1000) + 1000}`;
      // Aborted once the command is seen running, not after a guessed delay; only the abort can end it.
      const running = sandbox.exec(`echo waiting; touch .running; ${marker}`, { signal: controller.signal });
      await seenRunning(sandbox);
      controller.abort();
      const result = await running;
      expect(result).toMatchObject({
        exitCode: 130,
        end: 'cancelled',
        reason: 'cancelled',
        stdout: 'waiting\n',
      });
      const survivors = await sandbox.exec(`ps -eo args | grep -c '^${marker}$' || true`);
      expect(survivors.stdout.trim()).toBe('0');
      expect((await sandbox.exec('echo next')).stdout).toBe('next\n');
    });

    it('caps output, keeping head and tail and marking the cut', async () => {
      const { sandbox } = await openWith();
      // stderr's line waits until the test has seen stdout's last written, so it is the last to arrive.
      const running = sandbox.exec(`seq 1 200000; touch .wrote; ${waitAt('.gate')}; echo done >&2`, {
        maxOutputBytes: 4096,
      });
      await seen(sandbox, '.wrote');
      await openGate(sandbox, '.gate');
      const result = await running;
      expect(result.exitCode).toBe(0);
      expect(result.truncated).toBe(true);
      expect(result.stdout.startsWith('1\n2\n3\n')).toBe(true);
      expect(result.stdout.endsWith('199999\n200000\n')).toBe(true);
      expect(result.stdout).toMatch(/\[\.\.\. selfdebug: \d+ bytes omitted \.\.\.\]/);
      expect(Buffer.byteLength(result.stdout)).toBeLessThan(4096 + 100);
      expect(result.stderr).toBe('done\n');
      expect(result.output.endsWith('done\n')).toBe(true);
    });

    it('survives output that is not UTF-8', async () => {
      const { sandbox } = await openWith();
      const result = await sandbox.exec("printf 'bad \\377\\376 bytes\\n'; printf '\\303' >&2");
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toBe('bad \uFFFD\uFFFD bytes\n');
      expect(result.stderr).toBe('\uFFFD');
    });

    it('copies the workspace in, and changes made inside back out', async () => {
      const { sandbox, host } = await openWith({
        'keep.txt': 'keep',
        'gone.txt': 'gone',
        'dir/a.py': 'print(1)\n',
      });
      const inside = await sandbox.exec(
        'cat keep.txt && rm gone.txt && echo new > new.txt && mkdir -p made/deep && echo x > made/deep/x.txt && ' +
          'echo "print(2)" >> dir/a.py && ln -s keep.txt link.txt',
      );
      expect(inside).toMatchObject({ exitCode: 0, stdout: 'keep' });
      await sandbox.copyOut(host);
      expect(await readFile(join(host, 'new.txt'), 'utf8')).toBe('new\n');
      expect(await readFile(join(host, 'made/deep/x.txt'), 'utf8')).toBe('x\n');
      expect(await readFile(join(host, 'dir/a.py'), 'utf8')).toBe('print(1)\nprint(2)\n');
      expect(await readFile(join(host, 'link.txt'), 'utf8')).toBe('keep');
      await expect(readFile(join(host, 'gone.txt'))).rejects.toThrow(/ENOENT/);
    });

    it('copies host edits in, including deletions', async () => {
      const { sandbox, host } = await openWith({ 'a.txt': 'one', 'b.txt': 'two' });
      await writeFile(join(host, 'a.txt'), 'edited');
      await writeFile(join(host, 'c.txt'), 'added');
      const { rm } = await import('node:fs/promises');
      await rm(join(host, 'b.txt'));
      await sandbox.copyIn(host);
      const result = await sandbox.exec('cat a.txt c.txt; ls');
      expect(result.stdout).toBe('editedaddeda.txt\nc.txt\n');
    });

    it('reads and writes single files, keeping modes and making folders the sandbox user can use', async () => {
      const { sandbox } = await openWith({ 'run.sh': '#!/bin/sh\necho run\n' });
      await sandbox.exec('chmod 755 run.sh');
      const script = await sandbox.readFile('run.sh');
      expect(script?.content.toString()).toBe('#!/bin/sh\necho run\n');
      expect(script?.mode).toBe(0o755);
      await sandbox.writeFile('run.sh', '#!/bin/sh\necho changed\n', script?.mode);
      await sandbox.writeFile('new/deep/file.py', 'print("hi")\n');
      const result = await sandbox.exec(
        './run.sh && cat new/deep/file.py && touch new/deep/more.txt && echo ok',
      );
      expect(result.stdout).toBe('changed\nprint("hi")\nok\n');
      expect(await sandbox.readFile('missing.txt')).toBeNull();
      expect(await sandbox.readFile('new')).toBeNull();
      await expect(sandbox.readFile('../outside')).rejects.toThrow(/leaves the workspace/);
      await expect(sandbox.writeFile('/etc/passwd', 'x')).rejects.toThrow(/absolute/);
    });

    it('never writes a file older than what a command made before it, so make rebuilds after an edit', async () => {
      const { sandbox } = await openWith({ 'main.c': 'int main(void) { return 1; }\n' });
      // A build output made just now, then the model's edit of its source. (The kernel stamps files
      // from a clock that ticks every few milliseconds: a fast enough edit can share the output's time.)
      expect((await sandbox.exec('touch main.o')).exitCode).toBe(0);
      await sandbox.writeFile('main.c', 'int main(void) { return 0; }\n');
      const order = await sandbox.exec(
        '[ main.o -nt main.c ] && stat -c "%n %y" main.c main.o || echo in order',
      );
      expect(order.stdout).toBe('in order\n');
    });

    it('refuses a file used as a folder with a typed error naming the file, and damages nothing', async () => {
      const { sandbox } = await openWith({ 'total.py': 'x = 1\n' });
      for (const path of ['total.py/helpers.py', 'total.py/deep/helpers.py']) {
        for (const attempt of [() => sandbox.readFile(path), () => sandbox.writeFile(path, 'y = 2\n')]) {
          const error = await attempt().then(
            () => null,
            (caught: unknown) => caught,
          );
          expect(error).toBeInstanceOf(WorkspacePathError);
          expect(error).toMatchObject({ path, problem: 'not-a-folder' });
          expect((error as Error).message).toBe(
            `"${path}" is not a usable workspace path: "total.py" is a file, not a folder, so nothing can be inside it.`,
          );
        }
      }
      // The engine's archive API would have replaced the file by a folder: it is still the file.
      expect((await sandbox.readFile('total.py'))?.content.toString()).toBe('x = 1\n');
    });

    it('refuses a name longer than the file system allows, reading and writing', async () => {
      const { sandbox } = await openWith();
      const path = `${'a'.repeat(300)}.py`;
      for (const attempt of [() => sandbox.readFile(path), () => sandbox.writeFile(path, 'x')]) {
        const error = await attempt().then(
          () => null,
          (caught: unknown) => caught,
        );
        expect(error).toBeInstanceOf(WorkspacePathError);
        expect(error).toMatchObject({ problem: 'name-too-long' });
        expect((error as Error).message).toMatch(/longer than the file system allows \(255 bytes per name/);
      }
      // A long path of short names is fine.
      const deep = `${Array.from({ length: 20 }, () => 'd'.repeat(50)).join('/')}/file.txt`;
      await sandbox.writeFile(deep, 'deep\n');
      expect((await sandbox.readFile(deep))?.content.toString()).toBe('deep\n');
    });

    it('refuses to write a file over a folder, and keeps the folder', async () => {
      const { sandbox } = await openWith({ 'pkg/mod.py': 'VALUE = 1\n' });
      // Reading a folder is not an error: there is no such file.
      expect(await sandbox.readFile('pkg')).toBeNull();
      const error = await sandbox.writeFile('pkg', 'x').then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(WorkspacePathError);
      expect(error).toMatchObject({ path: 'pkg', problem: 'is-a-folder' });
      expect((error as Error).message).toContain('it is a folder, not a file');
      expect((await sandbox.readFile('pkg/mod.py'))?.content.toString()).toBe('VALUE = 1\n');
    });

    it('refuses to write through a symbolic link that leads out of the workspace', async () => {
      const { sandbox } = await openWith({ 'app.py': 'x = 1\n' });
      await sandbox.exec('ln -s .. up && ln -s ../escaped.txt gone.txt');
      for (const [path, blocker] of [
        ['up/escaped.txt', 'up'],
        ['gone.txt', 'gone.txt'],
      ] as const) {
        const error = await sandbox.writeFile(path, 'x').then(
          () => null,
          (caught: unknown) => caught,
        );
        expect(error, path).toBeInstanceOf(WorkspacePathError);
        expect(error, path).toMatchObject({ path, problem: 'outside-link' });
        expect((error as Error).message).toContain(
          `"${blocker}" leads out of the workspace through a symbolic link`,
        );
      }
      expect((await sandbox.exec('test -e ../escaped.txt && echo escaped || echo kept in')).stdout).toBe(
        'kept in\n',
      );
    });

    it('can be disposed twice', async () => {
      const { sandbox } = await openWith();
      await sandbox.dispose();
      await sandbox.dispose();
      expect(await subject.exists(sandbox.id)).toBe(false);
    });

    it('is removed when the job throws', async () => {
      const host = await tempDir();
      let id = '';
      await expect(
        withSandbox(subject.provider(), { jobId: 'contract-throws', workspace: host }, async (sandbox) => {
          id = sandbox.id;
          await sandbox.exec('true');
          throw new Error('job failed');
        }),
      ).rejects.toThrow('job failed');
      expect(id).not.toBe('');
      expect(await subject.exists(id)).toBe(false);
    });

    it('is removed when the job is cancelled mid-command', async () => {
      const host = await tempDir();
      const controller = new AbortController();
      let id = '';
      const job = withSandbox(
        subject.provider(),
        { jobId: 'contract-cancel', workspace: host, signal: controller.signal },
        async (sandbox) => {
          id = sandbox.id;
          const running = sandbox.exec('touch .running; sleep 3600', { signal: controller.signal });
          // Aborted once the command is seen running: a fixed delay raced a slow engine's start-up.
          await seenRunning(sandbox);
          controller.abort();
          return running;
        },
      );
      const result = await job;
      expect(result.end).toBe('cancelled');
      expect(await subject.exists(id)).toBe(false);
    });
  });
}

/** Resolves once a command has left its `.running` mark in the workspace. */
function seenRunning(sandbox: Sandbox): Promise<void> {
  return seen(sandbox, '.running');
}

/** Resolves once a command has left the file `mark` in the workspace. */
async function seen(sandbox: Sandbox, mark: string): Promise<void> {
  await vi.waitFor(async () => expect(await sandbox.readFile(mark)).not.toBeNull(), {
    timeout: 60_000,
    interval: 20,
  });
}

/**
 * Shell that waits until the file `gate` exists. A file the test writes through the port, not a second
 * command: a sandbox runs one command at a time.
 */
function waitAt(gate: string): string {
  return `until [ -e ${gate} ]; do sleep 0.01; done`;
}

/** Lets a command waiting at `gate` (waitAt) go on. */
async function openGate(sandbox: Sandbox, gate: string): Promise<void> {
  // Written while the command runs, and the command ends at once: its end must leave the write whole.
  await sandbox.writeFile(gate, 'go\n');
}

/** A duration is reported, never negative; how long is the machine's business, not the contract's. */
function expectDuration(result: ExecResult): void {
  expect(
    Number.isFinite(result.durationMs) && result.durationMs >= 0,
    `durationMs ${result.durationMs}`,
  ).toBe(true);
}
