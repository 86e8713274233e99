// biome-ignore-all lint/suspicious/noTemplateCurlyInString: INIT_TREE is a bash script, and ${…} is bash parameter expansion
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DockerSandboxProvider } from '../../src/adapters/docker/docker-sandbox-provider.js';
import { EnvironmentCache, STORE_LABEL } from '../../src/adapters/docker/environment-cache.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import { appScope } from '../../src/environment/cache-scope.js';
import { setupInputDigests } from '../../src/environment/setup-inputs.js';
import { PreparedImageRefusedError } from '../../src/errors/index.js';
import type { CacheScope, EnvironmentRequest } from '../../src/sandbox/environment.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { silentLogger } from '../../src/util/logger.js';
import { describeWithDocker, removeStoreImages, TEST_SANDBOX } from '../helpers/docker.js';
import { useTempDirs } from '../helpers/temp-dir.js';

/** What setup planted where the loop would find it; `find`, as gVisor's answer to `statx` breaks `ls` there. */
const LIST_PLANTED = 'find /tmp node_modules -mindepth 1 -maxdepth 1 2>&1';

/**
 * The container's processes that descend from its PID 1 (docker-init and what it started), one command line
 * each, read from /proc: an exec's own processes hang from the engine (parent 0), not from PID 1.
 */
const INIT_TREE = [
  'declare -A parent args',
  'for d in /proc/[0-9]*; do',
  '  p=${d#/proc/}; read -r stat < "$d/stat" 2>/dev/null || continue',
  '  rest=${stat##*) }; set -- $rest; parent[$p]=$2; args[$p]=$(tr "\\0" " " < "$d/cmdline")',
  'done',
  'for p in "${!parent[@]}"; do',
  '  q=$p; while [ "$q" != 1 ] && [ "${parent[$q]:-0}" != 0 ]; do q=${parent[$q]}; done',
  '  [ "$q" = 1 ] && echo "$p ${args[$p]% }"',
  'done | sort -n | cut -d" " -f2-',
].join('\n');

const docker = new Docker();
const SETUP_TIMEOUT_MS = 300_000;
// Both repositories run every script in tools/: the scripts are not named anywhere, so the key is the same for
// both, and only the cache's scope keeps B from A's environment.
const SETUP = 'bash scripts/setup.sh';
const SETUP_SCRIPT = 'for script in tools/*.sh; do bash "$script"; done\n';
/** What A's setup does as root with a writable root: everything a tenant could leave for the next one. */
const PLANT = [
  // Where Debian's own sitecustomize is, the first on sys.path: every python3 of the loop imports it.
  'python_site=$(python3 -c "import sysconfig; print(sysconfig.get_paths()[\'stdlib\'])")',
  'printf "open(\'/tmp/PLANTED-sitecustomize\', \'w\').close()\\n" >> "$python_site/sitecustomize.py"',
  // npm runs node_modules/.hooks/<event> and package.json's own lifecycle scripts on every install.
  'mkdir -p node_modules/.hooks && printf "#!/bin/sh\\ntouch /tmp/PLANTED-npm-hook\\n" > node_modules/.hooks/postinstall',
  'chmod +x node_modules/.hooks/postinstall',
  // The keeper of old: `sleep` from the image, now a script that stays alive and keeps a helper running.
  'rm -f /usr/bin/sleep && printf "#!/bin/sh\\n(while :; do touch /tmp/PLANTED-alive; read -t 1 x < /dev/zero; done) &\\nexec tail -f /dev/null\\n" > /usr/bin/sleep',
  'chmod +x /usr/bin/sleep',
  'nohup sh -c "while :; do :; done" > /dev/null 2>&1 &',
].join('\n');

/**
 * The prepared-environment cache between tenants (SECURITY.md, "The
 * prepared-environment cache"): repository A prepares an environment with
 * the very key B's setup has, planting code; B never starts from it and none
 * of A's code runs in B. A pull request's entry is not read by the default
 * branch; the loop starts with only the sandbox's own processes; a prepared
 * image cannot be named as an image; another store's images are never evicted.
 */
describeWithDocker('the prepared-environment cache as a boundary between repositories', () => {
  const tempDir = useTempDirs();
  let cacheDir: string;
  const open: Sandbox[] = [];
  const prepared: Record<string, Sandbox> = {};
  // Ids of this run's own: an entry another run left behind can never match them.
  const run = Math.floor(Math.random() * 1e9);
  const repositoryA = { installationId: 1, repositoryId: run, defaultBranch: 'main' };
  const repositoryB = { installationId: 2, repositoryId: run + 1, defaultBranch: 'main' };

  const provider = () =>
    new DockerSandboxProvider(
      parseSandboxConfig({ ...TEST_SANDBOX, environmentCacheEntries: 10, environmentCacheDir: cacheDir }),
      docker,
    );

  async function checkout(tools: string): Promise<string> {
    const dir = await tempDir();
    await mkdir(join(dir, 'scripts'));
    await mkdir(join(dir, 'tools'));
    await writeFile(join(dir, 'scripts', 'setup.sh'), SETUP_SCRIPT);
    await writeFile(join(dir, 'tools', 'prepare.sh'), tools);
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'victim', version: '1.0.0' }));
    return dir;
  }

  async function openIn(dir: string, scope: CacheScope, jobId: string): Promise<Sandbox> {
    const setup = [{ command: SETUP }];
    const request: EnvironmentRequest = {
      setup,
      services: [],
      allowedHosts: [],
      lockfiles: await setupInputDigests(dir, setup),
      cacheScope: scope,
    };
    const sandbox = await provider().open({ jobId, workspace: dir, environment: request });
    open.push(sandbox);
    return sandbox;
  }

  beforeAll(async () => {
    // Not a per-test folder: the store's id in it must outlive beforeAll.
    cacheDir = await mkdtemp(join(tmpdir(), 'selfdebug-cache-attacks-'));
    const attacker = await checkout(PLANT);
    const victim = await checkout('echo benign\n');
    const pullRequest = appScope({ ...repositoryA, branch: 'refs/pull/1/merge' });
    prepared.pull = await openIn(attacker, pullRequest, 'cache-a-pull');
    prepared.attacker = await openIn(attacker, appScope({ ...repositoryA, branch: 'main' }), 'cache-a-main');
    prepared.victim = await openIn(victim, appScope({ ...repositoryB, branch: 'main' }), 'cache-b-main');
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.all(open.map((sandbox) => sandbox.dispose().catch(() => {})));
    await removeStoreImages(cacheDir);
    await rm(cacheDir, { recursive: true, force: true });
  }, 120_000);

  it('keys both repositories alike, yet B prepares its own environment and none of A’s code runs in it', async () => {
    const { attacker, victim } = prepared as Record<string, Sandbox>;
    expect(victim!.preparation?.cacheKey).toBe(attacker!.preparation?.cacheKey);
    expect(victim!.preparation?.reused).toBeNull();
    expect(victim!.preparation?.setup.map((run) => run.result.exitCode)).toEqual([0]);
    const ran = await victim!.exec(
      `python3 -c "import sys" && node -e 0 && ${LIST_PLANTED}; python3 -c "import sitecustomize, inspect; print(inspect.getsource(sitecustomize))"`,
    );
    expect(ran.output).not.toMatch(/PLANTED|\.hooks/);
    // The attack works where it was planted: the same command in A's own loop finds A's code.
    const inAttacker = await attacker!.exec(`python3 -c "import sys"; ${LIST_PLANTED}`);
    expect(inAttacker.output).toMatch(/PLANTED-sitecustomize/);
  });

  it('does not let the default branch read an entry a pull request’s ref wrote', () => {
    const { pull, attacker } = prepared as Record<string, Sandbox>;
    expect(pull!.preparation?.reused).toBeNull();
    expect(attacker!.preparation?.cacheKey).toBe(pull!.preparation?.cacheKey);
    expect(attacker!.preparation?.reused).toBeNull();
  });

  it('starts the loop with nothing of setup running: only docker-init and the App’s keeper', async () => {
    const { attacker } = prepared as Record<string, Sandbox>;
    const keeper = ['/sbin/docker-init -- /opt/selfdebug/keeper', '/opt/selfdebug/keeper'];
    if (!TEST_SANDBOX.runtime) {
      // Asked of the engine, which lists the container's processes from the host: nothing inside can lie to it.
      const top = await docker.getContainer(attacker!.id).top({ ps_args: '-eo pid,args' });
      expect((top.Processes ?? []).map((row: string[]) => row.at(-1) ?? '')).toEqual(keeper);
    }
    // Under gVisor the engine lists the sandbox's own host processes instead, so the container's kernel is asked
    // (gVisor's, which the sandbox user cannot fool): everything that descends from PID 1, under either runtime.
    const tree = await attacker!.exec(INIT_TREE);
    expect(tree.stdout.trim().split('\n')).toEqual(keeper);
    expect((await attacker!.exec('find /tmp -maxdepth 1')).stdout).not.toContain('PLANTED-alive');
  });

  it('refuses a prepared environment named as the sandbox image, by name or by id, whatever the allowlist', async () => {
    const store = (await readFile(join(cacheDir, 'store-id'), 'utf8')).trim();
    const [image] = await docker.listImages({ filters: { label: [`${STORE_LABEL}=${store}`] } });
    const tag = image!.RepoTags?.[0] ?? '';
    expect(tag).toMatch(/^selfdebug-env:/);
    const everything = new DockerSandboxProvider(
      parseSandboxConfig({ ...TEST_SANDBOX, allowedImages: ['*'] }),
      docker,
    );
    for (const name of [tag, image!.Id]) {
      const error = await everything
        .open({
          jobId: 'cache-named',
          workspace: await tempDir(),
          environment: { image: name, setup: [], services: [], allowedHosts: [], lockfiles: {} },
        })
        .catch((caught: unknown) => caught);
      expect(error, name).toBeInstanceOf(PreparedImageRefusedError);
    }
  });

  it('leaves another store’s images alone when it evicts', async () => {
    const store = (await readFile(join(cacheDir, 'store-id'), 'utf8')).trim();
    const before = await docker.listImages({ filters: { label: [`${STORE_LABEL}=${store}`] } });
    expect(before.length).toBeGreaterThanOrEqual(3);
    const other = new EnvironmentCache(
      docker,
      { entries: 0, repositoryEntries: 1, gigabytes: 0, dir: await tempDir() },
      silentLogger,
    );
    expect(await other.evict('none')).toEqual([]);
    const after = await docker.listImages({ filters: { label: [`${STORE_LABEL}=${store}`] } });
    expect(after.map((image) => image.Id).sort()).toEqual(before.map((image) => image.Id).sort());
  });
});
