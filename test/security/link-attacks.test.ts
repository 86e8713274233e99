import { lstat, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterEach, expect, vi } from 'vitest';
import { DockerSandboxProvider } from '../../src/adapters/docker/docker-sandbox-provider.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import { WorkspacePathError } from '../../src/errors/index.js';
import { resolveInside } from '../../src/sandbox/resolve-inside.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { copyBack } from '../../src/workspace/copy-back.js';
import { describeWithDocker, TEST_SANDBOX } from '../helpers/docker.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { attackSuite } from './attack-table.js';

const docker = new Docker();
const DOCKER_TIMEOUT = 120_000;
const SECRET = 'root-only-secret-5f0c1e';

/** Runs `script` in the sandbox's container as root, as setup or the image could have left files. */
/** A folder's entries, one per line, sorted, as `ls -A` prints them. */
const list = (folder: string): string => `find ${folder} -mindepth 1 -maxdepth 1 -printf '%f\\n' | sort`;

async function asRoot(sandbox: Sandbox, script: string): Promise<void> {
  const exec = await docker.getContainer(sandbox.id).exec({ Cmd: ['sh', '-c', script], User: '0' });
  const stream = await exec.start({});
  await new Promise((resolve) => {
    stream.on('end', resolve);
    stream.resume();
  });
  // The stream can end a moment before the engine records the exit.
  await vi.waitFor(async () => expect((await exec.inspect()).ExitCode).toBe(0), {
    timeout: 30_000,
    interval: 50,
  });
}

/** Every file and link under `root`: no file with the secret, no link leading out. */
async function expectClean(root: string): Promise<void> {
  const entries = await readdir(root, { recursive: true });
  for (const entry of entries) {
    const info = await lstat(join(root, entry));
    if (info.isFile())
      expect(await readFile(join(root, entry), 'utf8'), entry).not.toMatch(/root-only-secret|root:/);
    if (info.isSymbolicLink())
      expect(await resolveInside(root, entry), entry).not.toBeInstanceOf(WorkspacePathError);
  }
}

describeWithDocker('link attacks', () => {
  const tempDir = useTempDirs();
  const open: Sandbox[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((sandbox) => sandbox.dispose()));
  });
  const attack = attackSuite('links');

  /** A sandbox whose workspace and /tmp hold root's 600 files, and links of every kind to them. */
  async function planted(): Promise<{ sandbox: Sandbox; checkout: string }> {
    const checkout = await tempDir();
    await writeFile(join(checkout, 'app.py'), 'print(1)\n');
    const provider = new DockerSandboxProvider(parseSandboxConfig({ ...TEST_SANDBOX }), docker);
    const sandbox = await provider.open({ jobId: `links-${Date.now()}`, workspace: checkout });
    open.push(sandbox);
    expect((await sandbox.exec('mkdir -m 777 drop')).exitCode).toBe(0);
    await asRoot(
      sandbox,
      `umask 077; echo ${SECRET} > drop/secret; echo ${SECRET} > /tmp/rootsecret; ln drop/secret drop/hard || true`,
    );
    const links = [
      'ln -s /etc/shadow shadow',
      'ln -s /tmp/rootsecret tmp-secret',
      'ln -s ../../tmp/rootsecret climbing',
      'ln -s hop1 hop0 && ln -s /tmp hop1',
      'ln -s drop/secret inside-secret',
    ];
    expect((await sandbox.exec(links.join(' && '))).exitCode).toBe(0);
    return { sandbox, checkout };
  }

  const OUTSIDE = ['shadow', 'tmp-secret', 'climbing', 'hop0/rootsecret'];
  const ROOT_ONLY = ['drop/secret', 'inside-secret'];

  attack(
    'read a root-only file through a link, or one root left in the workspace',
    'paths resolve inside the workspace and files are read as the sandbox user: outside-link or permission-denied',
    async () => {
      const { sandbox } = await planted();
      expect((await sandbox.exec('id -u')).stdout).toBe('1000\n');
      for (const path of [...OUTSIDE, ...ROOT_ONLY]) {
        const error = await sandbox.readFile(path).then(
          () => null,
          (caught: unknown) => caught,
        );
        expect(error, path).toBeInstanceOf(WorkspacePathError);
        const problem = OUTSIDE.includes(path) ? 'outside-link' : 'permission-denied';
        expect(error, path).toMatchObject({ problem });
        expect((error as Error).message).not.toContain(SECRET);
      }
    },
    DOCKER_TIMEOUT,
  );

  attack(
    'swap a file the editor just read for a link leading out, before it is written back',
    'the write resolves its path in the command that writes: a link leading out is refused, one inside is written through',
    async () => {
      const { sandbox } = await planted();
      expect((await sandbox.readFile('app.py'))?.content.toString()).toBe('print(1)\n');
      expect((await sandbox.exec('rm app.py && ln -s /etc/passwd app.py')).exitCode).toBe(0);
      await expect(sandbox.writeFile('app.py', 'owned\n')).rejects.toMatchObject({ problem: 'outside-link' });
      expect((await sandbox.exec('head -c 5 /etc/passwd')).stdout).toBe('root:');
      // Read then written with nothing between: it lands where the read resolved it, through a link inside.
      expect((await sandbox.exec('echo "print(2)" > real.py && ln -s real.py alias.py')).exitCode).toBe(0);
      expect((await sandbox.readFile('alias.py'))?.content.toString()).toBe('print(2)\n');
      await sandbox.writeFile('alias.py', 'print(3)\n');
      expect((await sandbox.exec('test -L alias.py && cat real.py')).stdout).toBe('print(3)\n');
    },
    DOCKER_TIMEOUT,
  );

  attack(
    'have an edit written as root into a folder only root may write, past a check made as the sandbox user',
    'the write is made by the command that checks the path, as the sandbox user: permission denied, nothing written',
    async () => {
      const { sandbox } = await planted();
      // The image's root holds no capabilities: it makes its folder inside the folder anyone may write.
      await asRoot(sandbox, 'mkdir -m 755 drop/locked && echo "VALUE = 1" > drop/locked/settings.py');
      for (const path of ['drop/locked/planted.py', 'drop/locked/settings.py', 'drop/locked/deeper/x.py']) {
        await expect(sandbox.writeFile(path, 'owned\n'), path).rejects.toMatchObject({
          problem: 'permission-denied',
        });
      }
      // Listed with find, not ls or stat: the gVisor Debian ships answers coreutils' statx with EINVAL.
      const left = await sandbox.exec(`${list('drop/locked')}; cat drop/locked/settings.py`);
      expect(left.stdout).toBe('settings.py\nVALUE = 1\n');
      // Where the sandbox user may write, the file is its own, with the mode asked for and no leftovers.
      await sandbox.writeFile('drop/new.py', 'print(4)\n', 0o4755);
      const made = await sandbox.exec(`find drop/new.py -printf '%U %m\\n'; ${list('drop')}`);
      expect(made.stdout).toBe('1000 755\nhard\nlocked\nnew.py\nsecret\n');
    },
    DOCKER_TIMEOUT,
  );

  attack(
    'copy a root-only file back into the checkout through a link',
    'copyBack lists each with its reason; copyOut leaves them out; the checkout holds no secret and no link leading out',
    async () => {
      const { sandbox, checkout } = await planted();
      const back = await copyBack(sandbox, [...OUTSIDE, ...ROOT_ONLY, 'app.py'], checkout);
      expect(back.written).toEqual(['app.py']);
      expect(back.refused.map((entry) => entry.path)).toEqual([...OUTSIDE, ...ROOT_ONLY]);
      for (const entry of back.refused)
        expect(entry.reason).toMatch(/leads out of the workspace|permission denied/);
      await expectClean(checkout);
      const whole = await tempDir();
      const { refused } = await sandbox.copyOut(whole);
      expect(refused.map((entry) => entry.path)).toEqual(
        expect.arrayContaining(['drop/secret', 'shadow', 'tmp-secret', 'climbing', 'hop1']),
      );
      await expectClean(whole);
    },
    DOCKER_TIMEOUT,
  );
});
