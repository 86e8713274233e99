import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmod, cp, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithDocker, TEST_IMAGE } from '../helpers/docker.js';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../helpers/fake-openai-server.js';

/**
 * The README's "Try the demo" and "Try it on a folder" commands, read from README.md and run as
 * written in bash on a clean copy of the repository (the files git knows,
 * tracked and untracked-but-not-ignored, as they are in the working tree: no
 * node_modules, no dist, no .env). One substitution: `npm ci` needs the
 * registry, so the copy gets a symlink to this checkout's node_modules instead
 * (`npm ci --offline` from a full npm cache works too, but takes minutes).
 * `npm run build` and `npx selfdebug …` run verbatim; the model key the README
 * exports is the one the model server receives. The machine supplies what an
 * operator sets outside the commands: SELFDEBUG_MODEL_BASE_URL (a scripted
 * OpenAI-compatible server on 127.0.0.1) and SELFDEBUG_SANDBOX_IMAGE (the test
 * image). Then `selfdebug doctor`, from the same copy, on a machine missing one
 * part at a time: the Docker engine, the sandbox image, the model key.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

const BROKEN_STATS = 'values = [1, 2, 3, 4]\nprint(f"mean: {statistics.mean(values)}")\n';
const FIXED_STATS = `import statistics\n${BROKEN_STATS}`;
const fixProposal = {
  analysis: 'stats.py calls statistics.mean but never imports the statistics module.',
  edits: [
    {
      path: 'stats.py',
      search: 'values = [1, 2, 3, 4]\n',
      replace: 'import statistics\nvalues = [1, 2, 3, 4]\n',
    },
  ],
};
const reflection = {
  summary: 'Imported the statistics module in stats.py',
  rootCause: 'statistics.mean was used without importing statistics',
  changes: 'Added `import statistics` at the top of stats.py',
  confidence: 'high',
  risks: [],
};

/** The first ```sh block under a README heading, as lines. */
function readmeBlock(readme: string, heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`README.md has no "## ${heading}" section`);
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(start));
  if (block === null) throw new Error(`"## ${heading}" has no sh block`);
  return block[1]!.trimEnd().split('\n');
}

/** The working tree as git sees it (tracked and untracked-not-ignored files that exist), copied to `target`. */
async function copyWorkingTree(target: string): Promise<void> {
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  for (const path of new Set(stdout.split('\0').filter(Boolean))) {
    const source = join(ROOT, path);
    const exists = await stat(source).then(
      (info) => info.isFile(),
      () => false,
    );
    if (!exists) continue;
    await mkdir(dirname(join(target, path)), { recursive: true });
    await cp(source, join(target, path));
  }
}

interface Result {
  code: number | null;
  output: string;
}

function bash(script: string, cwd: string, env: Record<string, string>): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

/** What a fresh shell has: no model keys or URLs of this machine. */
function shellEnvironment(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'LANG', 'TZ', 'TMPDIR', 'DOCKER_HOST', 'npm_config_cache']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, npm_config_update_notifier: 'false', npm_config_offline: 'true', ...extra };
}

describeWithDocker('the README, followed to the letter on a clean copy', () => {
  let copy: string;
  let server: FakeOpenAIServer;

  beforeAll(async () => {
    copy = await mkdtemp(join(tmpdir(), 'selfdebug-readme-'));
    await copyWorkingTree(copy);
    await symlink(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    if (copy) await rm(copy, { recursive: true, force: true });
  });

  it('"Try it on a folder": build, export a key, fix a broken script', async () => {
    const readme = await readFile(join(copy, 'README.md'), 'utf8');
    const lines = readmeBlock(readme, 'Try it on a folder');
    expect(lines[0]).toMatch(/^npm ci && /);
    expect(lines.some((line) => line.startsWith('npx selfdebug fix '))).toBe(true);
    const directory = /--dir (\S+)/.exec(lines.join('\n'))?.[1];
    expect(directory).toBeDefined();
    const project = join(copy, directory!);
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'stats.py'), BROKEN_STATS);

    server = await startFakeOpenAIServer([{ json: fixProposal }, { json: reflection }]);
    // The one substitution: node_modules is already linked in, so `npm ci &&` is dropped.
    const script = ['set -e', lines[0]!.replace(/^npm ci && /, ''), ...lines.slice(1)].join('\n');
    const result = await bash(
      script,
      copy,
      shellEnvironment({ SELFDEBUG_MODEL_BASE_URL: server.url, SELFDEBUG_SANDBOX_IMAGE: TEST_IMAGE }),
    );

    expect(result.code, result.output).toBe(0);
    expect(await readFile(join(project, 'stats.py'), 'utf8')).toBe(FIXED_STATS);
    const exported = /export SELFDEBUG_MODEL_API_KEY=(\S+)/.exec(lines.join('\n'))?.[1];
    const chat = server.requests.filter((request) => request.path === '/v1/chat/completions');
    expect(chat.length).toBeGreaterThan(0);
    expect(chat[0]!.headers.authorization).toBe(`Bearer ${exported}`);
  }, 300_000);

  it('"Try the demo": the example project is fixed from its replay file, with no model server', async () => {
    const readme = await readFile(join(copy, 'README.md'), 'utf8');
    const lines = readmeBlock(readme, 'Try the demo');
    expect(lines[0]).toMatch(/^npm ci && /);
    const command = lines.find((line) => line.startsWith('npx selfdebug fix '));
    expect(command).toMatch(/--replay examples\/\S+\/replay\.json/);
    const directory = /--dir (\S+)/.exec(command!)?.[1];
    const patch = /--patch (\S+)/.exec(command!)?.[1];
    const before = await readFile(join(copy, directory!, 'wordcount.py'), 'utf8');
    // The same substitution as above; no model URL or key: the replay file answers.
    const script = ['set -e', lines[0]!.replace(/^npm ci && /, ''), ...lines.slice(1)].join('\n');
    const result = await bash(script, copy, shellEnvironment({ SELFDEBUG_SANDBOX_IMAGE: TEST_IMAGE }));

    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/fixed: the command passed on attempt 1/);
    const diff = await readFile(join(copy, patch!), 'utf8');
    expect(diff).toContain('+    for word in text.split():');
    // --patch leaves the example as it is in the repository, so the demo can run again.
    expect(await readFile(join(copy, directory!, 'wordcount.py'), 'utf8')).toBe(before);
  }, 300_000);

  /** `npx selfdebug doctor` in the copy (built by the test above, or here if run alone). */
  async function doctor(env: Record<string, string>): Promise<Result> {
    const built = await stat(join(copy, 'dist/cli/main.js')).then(
      () => true,
      () => false,
    );
    const build = built ? '' : 'npm run build >/dev/null && ';
    return bash(`${build}npx selfdebug doctor`, copy, shellEnvironment(env));
  }

  const ready = { SELFDEBUG_SANDBOX_IMAGE: TEST_IMAGE, SELFDEBUG_MODEL_API_KEY: 'sk-test' };

  it('doctor on a machine whose Docker engine does not answer', async () => {
    const socket = join(copy, 'no-engine', 'docker.sock');
    const result = await doctor({ ...ready, DOCKER_HOST: `unix://${socket}` });
    expect(result.code, result.output).not.toBe(0);
    const line = lineAbout(result.output, /docker engine/i);
    expect(line, result.output).toMatch(/✘/);
    expect(result.output).toMatch(/DOCKER_HOST|dockerd|docker (engine|daemon)|start/i);
  }, 120_000);

  it('doctor on a machine without the sandbox image', async () => {
    const image = `selfdebug-executor:absent-${randomUUID().slice(0, 8)}`;
    const result = await doctor({ ...ready, SELFDEBUG_SANDBOX_IMAGE: image });
    expect(result.code, result.output).not.toBe(0);
    const line = lineAbout(result.output, /sandbox image|image/i);
    expect(line, result.output).toMatch(/✘/);
    expect(result.output).toContain(image);
    expect(result.output).toMatch(/docker build|image:test|docker pull|SELFDEBUG_SANDBOX_IMAGE/);
    expect(lineAbout(result.output, /docker engine/i), result.output).toMatch(/✔/);
  }, 120_000);

  it('doctor on a machine without a model key', async () => {
    const result = await doctor({ SELFDEBUG_SANDBOX_IMAGE: TEST_IMAGE });
    expect(result.code, result.output).not.toBe(0);
    const line = lineAbout(result.output, /model/i);
    expect(line, result.output).toMatch(/✘/);
    expect(result.output).toMatch(/SELFDEBUG_MODEL_API_KEY|OPENAI_API_KEY/);
    expect(lineAbout(result.output, /sandbox image/i), result.output).toMatch(/✔/);
  }, 120_000);
});

describeWithDocker('the packed CLI', () => {
  let work: string;
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'selfdebug-pack-'));
    await copyWorkingTree(join(work, 'checkout'));
    await symlink(join(ROOT, 'node_modules'), join(work, 'checkout', 'node_modules'), 'dir');
  }, 120_000);
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  /**
   * `npm pack` builds (prepack) and packs; `npm install -g` of the tarball
   * needs the registry for the dependencies, so the install is done as npm
   * lays it out: the package under PREFIX/lib/node_modules, its dependencies
   * beside it (here: a link to this checkout's), and PREFIX/bin/selfdebug a
   * symlink to the package's bin. Then `selfdebug` runs from an unrelated
   * directory with only PREFIX/bin added to PATH.
   */
  it('npm pack, then `selfdebug` on PATH runs from any directory', async () => {
    const checkout = join(work, 'checkout');
    // What an older build left (a file since renamed or deleted) must not ship: prepack starts from no dist/.
    await mkdir(join(checkout, 'dist', 'gone'), { recursive: true });
    await writeFile(join(checkout, 'dist', 'gone', 'left-over.js'), 'export {};\n');
    const packed = await bash(
      `npm pack --pack-destination ${JSON.stringify(work)}`,
      checkout,
      shellEnvironment({}),
    );
    expect(packed.code, packed.output).toBe(0);
    const tarball = join(work, 'selfdebug-0.1.0.tgz');
    const manifest = JSON.parse(await readFile(join(checkout, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
      version: string;
    };
    expect(Object.keys(manifest.bin)).toEqual(['selfdebug']);

    const prefix = join(work, 'prefix');
    const installed = join(prefix, 'lib', 'node_modules', 'selfdebug');
    await mkdir(installed, { recursive: true });
    await run('tar', ['xzf', tarball, '-C', installed, '--strip-components=1']);
    const listed = (await run('tar', ['tzf', tarball])).stdout.split('\n');
    expect(listed).toContain(`package/${manifest.bin.selfdebug!.replace(/^\.\//, '')}`);
    expect(listed.some((path) => path.startsWith('package/src/') || path.startsWith('package/test/'))).toBe(
      false,
    );
    expect(listed.filter((path) => path.includes('left-over'))).toEqual([]);
    await symlink(join(ROOT, 'node_modules'), join(installed, 'node_modules'), 'dir');
    const target = join(installed, manifest.bin.selfdebug!);
    expect((await readFile(target, 'utf8')).split('\n')[0]).toBe('#!/usr/bin/env node');
    // npm's bin-links makes the target executable (tsc writes it 0644) and links it into PREFIX/bin.
    await chmod(target, 0o755);
    await mkdir(join(prefix, 'bin'));
    await symlink(target, join(prefix, 'bin', 'selfdebug'));

    const elsewhere = await mkdtemp(join(work, 'elsewhere-'));
    const env = shellEnvironment({ PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}` });
    const help = await bash('command -v selfdebug && selfdebug help', elsewhere, env);
    expect(help.code, help.output).toBe(0);
    expect(help.output).toContain(join(prefix, 'bin', 'selfdebug'));
    expect(help.output).toMatch(/Usage: selfdebug/);
    const version = await bash('selfdebug --version', elsewhere, env);
    expect(version.output).toContain(manifest.version);
  }, 300_000);
});

/** The first line of doctor's output that names `part` and carries a mark. */
function lineAbout(output: string, part: RegExp): string | undefined {
  return output.split('\n').find((line) => part.test(line) && /[✔✘–]/.test(line));
}
