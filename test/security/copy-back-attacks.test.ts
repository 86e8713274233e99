import { execFile } from 'node:child_process';
import { lstat, mkdir, readdir, readFile, readlink, stat, symlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { DockerSandboxProvider } from '../../src/adapters/docker/docker-sandbox-provider.js';
import { extractWorkspace } from '../../src/adapters/docker/workspace-archive.js';
import { GitWorkspaceProvider } from '../../src/adapters/git/git-workspace-provider.js';
import { loadAppConfig } from '../../src/config/app-config.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import { parseModelConfig } from '../../src/config/model-config.js';
import type { SandboxConfigInput } from '../../src/config/sandbox-config.js';
import { WorkspaceTransferError } from '../../src/errors/index.js';
import { type JobRunnerDependencies, runJob } from '../../src/jobs/run-job.js';
import { type ScriptedAnswer, ScriptedModel } from '../../src/model/scripted-model.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { silentLogger } from '../../src/util/logger.js';
import { copyBack } from '../../src/workspace/copy-back.js';
import { FakeCodeHost } from '../fakes/fake-code-host.js';
import { jobRequest, mentionTrigger } from '../fakes/job-requests.js';
import { craftedTar } from '../helpers/crafted-tar.js';
import { describeWithDocker, TEST_RUNTIME, TEST_SANDBOX } from '../helpers/docker.js';
import { GitHttpServer } from '../helpers/git-http-server.js';
import { fix, reflect } from '../helpers/loop-fixtures.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { attackSuite } from './attack-table.js';

/*
 * Code in the sandbox shapes the workspace; the host then copies it back,
 * commits, diffs and pushes. Each test plays one attack from inside a real
 * container against the real copy-back code (the archive layer behind
 * Sandbox.copyOut, and copyBack, which the job runner and `selfdebug fix`
 * use), and checks that the host is unchanged and the copy did not fail.
 */

const execFileAsync = promisify(execFile);
const docker = new Docker();
const TOKEN = 'ghs_copyback0123456789abcdefghijklmnop';
const DOCKER_TIMEOUT = 120_000;
const LIMITS = { maxBytes: 1024 * 1024, maxEntries: 1000 };
const BROKEN = 'print(greeting)\n';
const FIXED_EDIT = { path: 'app.py', search: 'print(greeting)', replace: 'greeting = "hi"\nprint(greeting)' };

const provider = (overrides: SandboxConfigInput = {}) =>
  new DockerSandboxProvider(
    parseSandboxConfig({ ...TEST_SANDBOX, commandTimeoutSeconds: 60, ...overrides }),
    docker,
  );

/** Every entry below `dir`: kind, permission bits and content or link target, to show that nothing changed. */
async function snapshot(dir: string): Promise<string[]> {
  const lines: string[] = [];
  for (const name of (await readdir(dir, { recursive: true })).sort()) {
    const path = join(dir, name);
    const info = await lstat(path);
    const mode = (info.mode & 0o7777).toString(8);
    if (info.isSymbolicLink()) lines.push(`${name} link ${await readlink(path)}`);
    else if (info.isDirectory()) lines.push(`${name}/ ${mode}`);
    else lines.push(`${name} ${mode} ${(await readFile(path)).toString('base64')}`);
  }
  return lines;
}

const exists = (path: string) =>
  lstat(path).then(
    () => true,
    () => false,
  );

describeWithDocker('copy-back attacks', () => {
  const attack = attackSuite('copy-back');
  const tempDir = useTempDirs();
  const open: Sandbox[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((sandbox) => sandbox.dispose()));
  });

  /** A sandbox over a fresh host folder holding `files`; the folder is where copy-back writes. */
  async function openWith(files: Record<string, string> = {}, overrides: SandboxConfigInput = {}) {
    const host = await tempDir('selfdebug-copyback-host-');
    for (const [path, content] of Object.entries(files)) {
      await mkdir(join(host, path, '..'), { recursive: true });
      await writeFile(join(host, path), content);
    }
    const sandbox = await provider(overrides).open({ jobId: `copyback-${Date.now()}`, workspace: host });
    open.push(sandbox);
    return { sandbox, host };
  }

  /** Runs the attacker's script in the container; it must itself have worked unless told otherwise. */
  async function inside(sandbox: Sandbox, script: string) {
    const result = await sandbox.exec(script);
    expect(result.exitCode, result.output).toBe(0);
    return result;
  }

  /** A host folder the attack aims at: it holds one file, and must hold exactly that afterwards. */
  async function target() {
    const dir = await tempDir('selfdebug-outside-');
    await writeFile(join(dir, 'keep.txt'), 'keep\n');
    const before = await snapshot(dir);
    return { dir, unchanged: async () => expect(await snapshot(dir)).toEqual(before) };
  }

  // ---- the job runner's whole path: checkout, sandbox, loop, copy-back, commit, push ----

  let server: GitHttpServer;
  beforeAll(async () => {
    server = await GitHttpServer.start({ token: TOKEN });
  });
  afterAll(() => server.close());

  /** A repository whose main holds `files`, and symbolic links made with git itself (the helper writes only files). */
  async function repository(name: string, files: Record<string, string>, links: Record<string, string> = {}) {
    const [sha] = await server.createRepository(name, [files]);
    if (Object.keys(links).length === 0) return sha!;
    const work = await tempDir('selfdebug-seed-');
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'Seed',
      GIT_AUTHOR_EMAIL: 'seed@example.com',
      GIT_COMMITTER_NAME: 'Seed',
      GIT_COMMITTER_EMAIL: 'seed@example.com',
    };
    const git = async (...args: string[]) =>
      (await execFileAsync('git', args, { cwd: work, env })).stdout.trim();
    await git('clone', '--quiet', server.repositoryPath(name), '.');
    for (const [link, to] of Object.entries(links)) await execFileAsync('ln', ['-s', to, join(work, link)]);
    await git('add', '--all');
    await git('commit', '--quiet', '--message', 'links');
    await git('push', '--quiet', 'origin', 'HEAD:refs/heads/main');
    return git('rev-parse', 'HEAD');
  }

  /** Runs one job on the real engine with a scripted model, as the worker would. */
  async function job(
    name: string,
    id: string,
    sha: string,
    command: string | null,
    answers: ScriptedAnswer[],
    scriptBlocks: { language: string; code: string }[] = [],
  ) {
    const host = new FakeCodeHost(`octo/${name}`);
    host.branches.set('main', sha);
    host.permissions.set('octocat', 'write');
    host.config = command === null ? {} : { command };
    const dependencies: JobRunnerDependencies = {
      codeHostFor: async () => host,
      tokenFor: async () => TOKEN,
      workspaces: new GitWorkspaceProvider({ allowedProtocols: ['http'], host: process.env }),
      sandboxProviderFor: (config) => new DockerSandboxProvider({ ...config, ...TEST_SANDBOX }, docker),
      modelFor: () => new ScriptedModel(answers),
      sandboxConfig: parseSandboxConfig({ ...TEST_SANDBOX, commandTimeoutSeconds: 60 }),
      modelConfig: parseModelConfig({ apiKey: 'sk-test-secret-key-0123456789' }),
      appConfig: loadAppConfig({}),
      logger: silentLogger,
      environment: {},
    };
    const request = jobRequest({
      id,
      dedupeKey: `comment-${id}`,
      repository: { ...jobRequest().repository, name, cloneUrl: server.url(name) },
      trigger: mentionTrigger({ issueNumber: 12, text: 'app.py crashes', scriptBlocks }),
    });
    const result = await runJob(request, new AbortController().signal, dependencies);
    return { result, host, branch: `selfdebug/issue-12-${id.slice(0, 8)}` };
  }

  // ---- names ----

  attack(
    '`../` entry names',
    'extractWorkspace skips names leaving the workspace; copyBack refuses `../` paths',
    async () => {
      const root = await tempDir();
      const dest = join(root, 'a', 'dest');
      await mkdir(dest, { recursive: true });
      const refused = await extractWorkspace(
        craftedTar([
          { name: 'workspace/../../escape.txt', body: 'x' },
          { name: 'workspace/sub/../../../escape2.txt', body: 'x' },
          { name: 'workspace/ok.txt', body: 'ok' },
        ]),
        dest,
        LIMITS,
      );
      expect(refused.map((entry) => entry.path)).toEqual([
        'workspace/../../escape.txt',
        'workspace/sub/../../../escape2.txt',
      ]);
      expect((await readdir(root, { recursive: true })).sort()).toEqual(['a', 'a/dest', 'a/dest/ok.txt']);

      // From the container, names can only look like climbing: they come back as ordinary files inside.
      const { sandbox, host } = await openWith();
      const outside = await target();
      await inside(sandbox, "mkdir -p 'a/..b' && touch '...' 'a/..b/..' 2>/dev/null; touch '..x' 'a/..b/c'");
      expect((await sandbox.copyOut(host)).refused).toEqual([]);
      expect((await readdir(host, { recursive: true })).sort()).toEqual([
        '...',
        '..x',
        'a',
        'a/..b',
        'a/..b/c',
      ]);
      const back = await copyBack(
        sandbox,
        ['../escape.txt', `a/../../${basename(outside.dir)}/keep.txt`],
        host,
      );
      expect(back.written).toEqual([]);
      expect(back.refused.map((entry) => entry.reason)).toEqual([
        expect.stringContaining('leaves the workspace'),
        expect.stringContaining('leaves the workspace'),
      ]);
      await outside.unchanged();
    },
    DOCKER_TIMEOUT,
  );

  attack(
    'absolute entry names',
    'extractWorkspace skips absolute names instead of re-rooting them; copyBack refuses absolute paths',
    async () => {
      const outside = await target();
      const dest = await tempDir();
      const refused = await extractWorkspace(
        craftedTar([
          { name: join(outside.dir, 'abs.txt'), body: 'x' },
          { name: 'workspace/ok.txt', body: 'ok' },
        ]),
        dest,
        LIMITS,
      );
      expect(refused).toEqual([{ path: join(outside.dir, 'abs.txt'), reason: 'its name is absolute' }]);
      expect(await readdir(dest, { recursive: true })).toEqual(['ok.txt']);

      const { sandbox, host } = await openWith();
      await inside(sandbox, 'echo x > file.txt');
      const back = await copyBack(sandbox, [join(outside.dir, 'keep.txt'), '/etc/passwd'], host);
      expect(back.written).toEqual([]);
      expect(back.refused).toHaveLength(2);
      await outside.unchanged();
    },
    DOCKER_TIMEOUT,
  );

  // ---- links ----

  attack(
    'hard link out of the workspace',
    'the kernel refuses it in the container; extractWorkspace skips crafted ones',
    async () => {
      const passwd = await stat('/etc/passwd');
      const { sandbox, host } = await openWith();
      const tried = await sandbox.exec('ln /etc/passwd passwd; ln /etc/hostname hostname; echo ok > ok.txt');
      expect(tried.stderr).toMatch(/passwd.*(Invalid cross-device link|Operation not permitted)/);
      expect((await sandbox.copyOut(host)).refused).toEqual([]);
      expect(await readdir(host)).toEqual(['ok.txt']);

      const dest = await tempDir();
      const refused = await extractWorkspace(
        craftedTar([
          { name: 'workspace/passwd', type: 'link', linkname: 'workspace/../../../../etc/passwd' },
          { name: 'workspace/shadow', type: 'link', linkname: '/etc/passwd' },
          { name: 'workspace/ok.txt', body: 'ok' },
        ]),
        dest,
        LIMITS,
      );
      expect(refused.map((entry) => entry.path)).toEqual(['passwd', 'shadow']);
      expect(await readdir(dest)).toEqual(['ok.txt']);
      expect((await stat('/etc/passwd')).nlink).toBe(passwd.nlink);
    },
    DOCKER_TIMEOUT,
  );

  attack(
    'hard link to a symlink',
    'kept as a symlink to the same target when that stays inside; left out and listed when it leads out',
    async () => {
      const { sandbox, host } = await openWith();
      await inside(
        sandbox,
        'echo ok > ok.txt && ln -s ok.txt mine && ln -P mine mine-hard && ln -s nowhere dangling && ' +
          'ln -P dangling dangling-hard && ln -s /usr/bin/python3 py && ln -P py py-hard && ' +
          // find, not stat: the gVisor Debian ships answers statx with EINVAL.
          "find py-hard -printf '%n\n'",
      );
      const report = await sandbox.copyOut(host);
      expect(report.refused.map((entry) => entry.path).sort()).toEqual(['py', 'py-hard']);
      expect(await readlink(join(host, 'mine-hard'))).toBe('ok.txt');
      expect(await readlink(join(host, 'dangling-hard'))).toBe('nowhere');
      expect(await readFile(join(host, 'ok.txt'), 'utf8')).toBe('ok\n');
      // The file-by-file path takes a link inside as a link, and says why it refuses the other.
      const dest = await tempDir();
      const back = await copyBack(sandbox, ['mine-hard', 'py-hard'], dest);
      expect(back).toMatchObject({ written: ['mine-hard'], refused: [{ path: 'py-hard' }] });
      expect(await readlink(join(dest, 'mine-hard'))).toBe('ok.txt');
      expect(await readFile(join(dest, 'ok.txt'), 'utf8')).toBe('ok\n');
    },
    DOCKER_TIMEOUT,
  );

  attack(
    'hard link within the workspace',
    'kept as a hard link',
    async () => {
      const { sandbox, host } = await openWith();
      await inside(sandbox, 'echo shared > a.txt && ln a.txt b.txt');
      expect((await sandbox.copyOut(host)).refused).toEqual([]);
      expect((await stat(join(host, 'b.txt'))).ino).toBe((await stat(join(host, 'a.txt'))).ino);
      const dest = await tempDir();
      expect(await copyBack(sandbox, ['b.txt'], dest)).toEqual({ written: ['b.txt'], refused: [] });
      expect(await readFile(join(dest, 'b.txt'), 'utf8')).toBe('shared\n');
    },
    DOCKER_TIMEOUT,
  );

  attack(
    'a symlink replacing a folder the host later writes into',
    'copyBack never writes through a link on the host; extractWorkspace writes nothing below a link',
    async () => {
      const outside = await target();
      const { sandbox, host } = await openWith({ 'src/app.py': 'print(1)\n' });
      // First the folder becomes a link to the host's folder: copy-back leaves it out...
      await inside(sandbox, `rm -rf src && ln -s ${outside.dir} src`);
      expect((await sandbox.copyOut(host)).refused).toEqual([
        { path: 'src', reason: `it is a link to "${outside.dir}", which leads out of the workspace` },
      ]);
      expect(await lstat(join(host, 'src')).catch(() => null)).toBeNull();
      // ...but the checkout may hold one anyway (a repository can commit it)...
      await symlink(outside.dir, join(host, 'src'));
      // ...then a real folder takes its place in the sandbox, and the host is asked to write into it.
      await inside(sandbox, 'rm src && mkdir src && echo pwned > src/keep.txt && echo pwned > src/new.py');
      const back = await copyBack(sandbox, ['src/keep.txt', 'src/new.py'], host);
      expect(back.written).toEqual([]);
      expect(back.refused.map((entry) => entry.reason)).toEqual([
        expect.stringContaining('symbolic link'),
        expect.stringContaining('symbolic link'),
      ]);
      await outside.unchanged();

      // A crafted archive: a folder entry over the link (tar-fs would chmod its target), and entries below it.
      const dest = await tempDir();
      const refused = await extractWorkspace(
        craftedTar([
          { name: 'workspace/src', type: 'symlink', linkname: outside.dir },
          { name: 'workspace/src/', type: 'directory', mode: 0o777 },
          { name: 'workspace/src/keep.txt', body: 'pwned' },
        ]),
        dest,
        LIMITS,
      );
      await outside.unchanged();
      expect(refused.map((entry) => entry.path)).toEqual(['src', 'src/keep.txt', 'src']);
      expect(await lstat(join(dest, 'src')).catch(() => null)).toBeNull();
    },
    DOCKER_TIMEOUT,
  );

  attack(
    'a repository link the sandbox turns into a folder, through a whole job',
    'copyBack refuses the file; the job reports it and pushes nothing',
    async () => {
      const outside = await target();
      const sha = await repository(
        'linked',
        { 'app.py': BROKEN, 'check.sh': '[ -L src ] && rm src && mkdir src\ntest -f src/keep.txt\n' },
        { src: outside.dir },
      );
      const { result, host, branch } = await job('linked', 'a1a1a1a1-link', sha, 'sh check.sh', [
        fix('src/keep.txt is missing', [{ path: 'src/keep.txt', search: '', replace: 'pwned\n' }]),
        reflect(),
      ]);
      await outside.unchanged();
      expect(result.problem).toBeNull();
      expect(result.view?.deliveryError).toMatch(
        /did not push the fix[\s\S]*src\/keep\.txt[\s\S]*symbolic link/,
      );
      expect(host.pulls).toHaveLength(0);
      expect(await server.branchSha('linked', branch)).toBeNull();
    },
    DOCKER_TIMEOUT,
  );

  attack(
    "an issue's script written where the repository put a link",
    'the checkout is written without following links; the job fails with the reason',
    async () => {
      const outside = await target();
      const sha = await repository('scripts', { 'app.py': BROKEN }, { 'selfdebug-scripts': outside.dir });
      const { result } = await job(
        'scripts',
        'c3c3c3c3-script',
        sha,
        null,
        [],
        [{ language: 'sh', code: 'echo pwned\n' }],
      );
      await outside.unchanged();
      expect(result.problem).toMatchObject({
        kind: 'failed',
        message: expect.stringContaining('symbolic link'),
      });
    },
    DOCKER_TIMEOUT,
  );

  attack(
    'symlinks: kept inside, left out when they lead out',
    'links inside come back as links; links leading out (absolute, `..`) are left out and listed, never followed',
    async () => {
      const { sandbox, host } = await openWith({ 'README.md': 'readme\n' });
      await inside(sandbox, 'ln -s /etc/shadow shadow && ln -s README.md readme-link && ln -s ../../.. up');
      expect((await sandbox.copyOut(host)).refused.map((entry) => entry.path).sort()).toEqual([
        'shadow',
        'up',
      ]);
      expect(await readlink(join(host, 'readme-link'))).toBe('README.md');
      for (const name of ['shadow', 'up']) expect(await lstat(join(host, name)).catch(() => null)).toBeNull();
      const back = await copyBack(sandbox, ['shadow', 'up'], await tempDir());
      expect(back.written).toEqual([]);
      expect(back.refused).toEqual([
        { path: 'shadow', reason: expect.stringContaining('"shadow" leads out of the workspace') },
        { path: 'up', reason: expect.stringContaining('"up" leads out of the workspace') },
      ]);
    },
    DOCKER_TIMEOUT,
  );

  // ---- special files and modes ----

  attack(
    'device file',
    'mknod needs a capability the container lacks; crafted device entries are skipped',
    async () => {
      const { sandbox } = await openWith();
      const tried = await sandbox.exec('mknod tty c 5 0; mknod disk b 8 0; ls');
      expect(tried.stderr).toMatch(/Operation not permitted/);
      expect(tried.stdout).toBe('');
      const dest = await tempDir();
      const refused = await extractWorkspace(
        craftedTar([
          { name: 'workspace/tty', type: 'char' },
          { name: 'workspace/disk', type: 'block' },
          { name: 'workspace/ok.txt', body: 'ok' },
        ]),
        dest,
        LIMITS,
      );
      expect(refused).toEqual([
        { path: 'tty', reason: 'character-device entries are not copied back' },
        { path: 'disk', reason: 'block-device entries are not copied back' },
      ]);
      expect(await readdir(dest)).toEqual(['ok.txt']);
    },
    DOCKER_TIMEOUT,
  );

  attack(
    'fifo',
    'skipped and listed; the rest of the workspace still comes back',
    async () => {
      const { sandbox, host } = await openWith();
      await inside(sandbox, 'mkfifo pipe && echo ok > ok.txt');
      const report = await sandbox.copyOut(host);
      // gVisor keeps a fifo inside its own file system: the engine's archive never holds one to refuse.
      expect(report.refused).toEqual(
        TEST_RUNTIME === 'runsc' ? [] : [{ path: 'pipe', reason: 'fifo entries are not copied back' }],
      );
      expect(await readdir(host)).toEqual(['ok.txt']);
      const back = await copyBack(sandbox, ['pipe'], host);
      expect(back).toMatchObject({ written: [], refused: [{ path: 'pipe' }] });
    },
    DOCKER_TIMEOUT,
  );

  attack(
    'unix socket',
    'the engine leaves sockets out of the archive; copyBack refuses one',
    async () => {
      const { sandbox, host } = await openWith();
      await inside(
        sandbox,
        'python3 -c "import socket; socket.socket(socket.AF_UNIX).bind(\'sock\')" && test -S sock && echo ok > ok.txt',
      );
      expect((await sandbox.copyOut(host)).refused).toEqual([]);
      expect(await readdir(host)).toEqual(['ok.txt']);
      const back = await copyBack(sandbox, ['sock'], host);
      expect(back).toMatchObject({ written: [], refused: [{ path: 'sock' }] });
    },
    DOCKER_TIMEOUT,
  );

  attack(
    'setuid and setgid bits',
    'cleared on the host by both copy-back paths',
    async () => {
      const { sandbox, host } = await openWith({ 'run.sh': '#!/bin/sh\n' });
      await inside(
        sandbox,
        "chmod 6755 run.sh && mkdir shared && chmod 3777 shared && find run.sh -printf '%m\\n'",
      );
      expect((await sandbox.readFile('run.sh'))?.mode).toBe(0o755);
      const dest = await tempDir();
      expect(await copyBack(sandbox, ['run.sh'], dest)).toEqual({ written: ['run.sh'], refused: [] });
      expect((await stat(join(dest, 'run.sh'))).mode & 0o7777).toBe(0o755);
      await sandbox.copyOut(host);
      expect((await stat(join(host, 'run.sh'))).mode & 0o7000).toBe(0);
      expect((await stat(join(host, 'shared'))).mode & 0o7000).toBe(0);
    },
    DOCKER_TIMEOUT,
  );

  // ---- git ----

  attack(
    'rewritten .git (config, hooks, info/attributes) during a whole job',
    'only the edited files come back, never .git; git runs with hooks off and a sealed config',
    async () => {
      const marks = await tempDir('selfdebug-marks-');
      const sha = await repository('gitconfig', {
        'app.py': BROKEN,
        'check.sh': `sh rewrite-git.sh\npython3 app.py\n`,
        'rewrite-git.sh': rewriteGitScript(marks),
      });
      const { result, host, branch } = await job('gitconfig', 'b2b2b2b2-git', sha, 'sh check.sh', [
        fix('greeting is undefined', [
          FIXED_EDIT,
          { path: '.gitattributes', search: '', replace: '* filter=evil diff=evil merge=evil\n' },
          {
            path: '.gitmodules',
            search: '',
            replace:
              `[submodule "x"]\n\tpath = x\n\turl = ext::sh -c touch% ${marks}/submodule-url\n` +
              `\tupdate = !touch ${marks}/submodule-update\n`,
          },
        ]),
        reflect(),
      ]);
      expect(result.problem).toBeNull();
      expect(host.pulls).toHaveLength(1);
      // The host committed and pushed the hostile attribute and module files, and ran nothing.
      expect(await server.readFile('gitconfig', branch, '.gitattributes')).toContain('filter=evil');
      expect(await server.readFile('gitconfig', branch, '.gitmodules')).toContain('submodule-update');
      expect(await readdir(marks)).toEqual([]);
    },
    DOCKER_TIMEOUT,
  );

  attack(
    'rewritten .git brought back by a whole-workspace copy',
    "copyOut leaves every .git out and keeps the host's; commit and push run nothing",
    async () => {
      const marks = await tempDir('selfdebug-marks-');
      const sha = await repository('copyout', {
        'app.py': BROKEN,
        'rewrite-git.sh': rewriteGitScript(marks),
      });
      const workspace = await new GitWorkspaceProvider({
        allowedProtocols: ['http'],
        host: process.env,
      }).checkout({
        cloneUrl: server.url('copyout'),
        sha,
        token: TOKEN,
      });
      try {
        const config = await readFile(join(workspace.dir, '.git/config'));
        const hooks = await readdir(join(workspace.dir, '.git/hooks'));
        const sandbox = await provider().open({
          jobId: `copyback-git-${Date.now()}`,
          workspace: workspace.dir,
        });
        open.push(sandbox);
        await inside(
          sandbox,
          'sh rewrite-git.sh && echo "* filter=evil diff=evil" > .gitattributes && ' +
            `mkdir -p lib/.git && printf '[core]\\n\\tfsmonitor = touch ${marks}/nested\\n' > lib/.git/config && ` +
            `echo 'greeting = "hi"' > fix.py`,
        );
        const report = await sandbox.copyOut(workspace.dir);
        expect(report.refused.map((entry) => entry.path)).toEqual(['.git', 'lib/.git']);
        expect(await readFile(join(workspace.dir, '.git/config'))).toEqual(config);
        expect(await readdir(join(workspace.dir, '.git/hooks'))).toEqual(hooks);
        expect(await exists(join(workspace.dir, 'lib/.git'))).toBe(false);
        // The file-by-file path refuses a nested .git too (the model could name it).
        const back = await copyBack(sandbox, ['lib/.git/config', '.git/config'], workspace.dir);
        expect(back.written).toEqual([]);

        await workspace.createBranch('selfdebug/copy-out');
        expect(await workspace.commit('fix', { name: 'bot', email: 'bot@example.com' })).toMatch(
          /^[0-9a-f]{40}$/,
        );
        await workspace.push('selfdebug/copy-out', TOKEN);
        expect(await server.readFile('copyout', 'selfdebug/copy-out', 'fix.py')).toContain('greeting');
        expect(await readdir(marks)).toEqual([]);
      } finally {
        await workspace.dispose();
      }
    },
    DOCKER_TIMEOUT,
  );

  // ---- limits ----

  attack(
    'huge numbers of tiny files',
    'copyOut stops at maxCopyOutFiles and leaves the host folder as it was',
    async () => {
      const { sandbox, host } = await openWith({ 'keep.txt': 'keep\n' }, { maxCopyOutFiles: 1000 });
      await inside(
        sandbox,
        "python3 -c \"import os\nos.mkdir('many')\nfor i in range(3000): open(f'many/{i}', 'w').close()\"",
      );
      const before = await snapshot(host);
      const copy = sandbox.copyOut(host);
      await expect(copy).rejects.toBeInstanceOf(WorkspaceTransferError);
      await expect(copy).rejects.toThrow(/more than 1000 entries/);
      expect(await snapshot(host)).toEqual(before);
      // No staging folder is left beside it either.
      expect(
        (await readdir(join(host, '..'))).filter((name) => name.startsWith(`.${basename(host)}`)),
      ).toEqual([]);
    },
    DOCKER_TIMEOUT,
  );

  attack(
    'copy-back size cap',
    'copyOut stops at maxCopyOutMb; copyBack refuses a file past the read cap',
    async () => {
      const { sandbox, host } = await openWith({ 'keep.txt': 'keep\n' }, { maxCopyOutMb: 1 });
      await inside(sandbox, 'head -c 3M /dev/zero > big.bin && head -c 17M /dev/zero > huge.bin');
      const before = await snapshot(host);
      await expect(sandbox.copyOut(host)).rejects.toThrow(/larger than 1048576 bytes/);
      expect(await snapshot(host)).toEqual(before);
      const back = await copyBack(sandbox, ['huge.bin'], host);
      expect(back).toMatchObject({ written: [], refused: [{ path: 'huge.bin' }] });
      expect(await snapshot(host)).toEqual(before);
    },
    DOCKER_TIMEOUT,
  );
});

/**
 * Shell that rewrites the sandbox's .git so that any git command on the
 * host would run a program leaving a mark in `marks` (a host folder the
 * container cannot see): config (fsmonitor, hooksPath, sshCommand, pager,
 * editor, insteadOf, credential helper, filter and diff drivers), hooks and
 * info/attributes.
 */
function rewriteGitScript(marks: string): string {
  const hooks = [
    'pre-commit',
    'prepare-commit-msg',
    'commit-msg',
    'post-commit',
    'pre-push',
    'post-checkout',
    'reference-transaction',
    'pre-auto-gc',
    'post-index-change',
  ];
  return [
    'set -e',
    'cat >> .git/config <<EOF',
    '[core]',
    `\tfsmonitor = touch ${marks}/fsmonitor`,
    '\thooksPath = .git/hooks',
    `\tsshCommand = touch ${marks}/ssh`,
    `\tpager = touch ${marks}/pager`,
    `\teditor = touch ${marks}/editor`,
    `[url "ext::sh -c touch% ${marks}/insteadof% "]`,
    '\tinsteadOf = http://',
    '[protocol "ext"]',
    '\tallow = always',
    '[credential]',
    `\thelper = !touch ${marks}/credential`,
    '[filter "evil"]',
    `\tclean = touch ${marks}/clean`,
    `\tsmudge = touch ${marks}/smudge`,
    `\tprocess = touch ${marks}/process`,
    '\trequired = true',
    '[diff "evil"]',
    `\ttextconv = touch ${marks}/textconv`,
    `\tcommand = touch ${marks}/diff`,
    '[merge "evil"]',
    `\tdriver = touch ${marks}/merge`,
    'EOF',
    'mkdir -p .git/hooks .git/info',
    `for hook in ${hooks.join(' ')}; do printf '#!/bin/sh\\ntouch ${marks}/hook-%s\\n' "$hook" > ".git/hooks/$hook"; chmod +x ".git/hooks/$hook"; done`,
    "echo '* filter=evil diff=evil merge=evil' > .git/info/attributes",
    '',
  ].join('\n');
}
