import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { describeEndpoint } from '../src/adapters/docker/docker-endpoint.js';
import { DockerSandbox } from '../src/adapters/docker/docker-sandbox.js';
import { DockerSandboxProvider } from '../src/adapters/docker/docker-sandbox-provider.js';
import { STORE_LABEL } from '../src/adapters/docker/environment-cache.js';
import { containerLabels } from '../src/adapters/docker/labels.js';
import { parseSandboxConfig } from '../src/config/load-config.js';
import { appScope } from '../src/environment/cache-scope.js';
import { setupInputDigests } from '../src/environment/setup-inputs.js';
import type { EnvironmentRequest, SetupCommand } from '../src/sandbox/environment.js';
import type { ExecResult } from '../src/sandbox/sandbox.js';
import { generatedPackages, PackageIndex } from '../test/fakes/package-index.js';
import { type KeyTiming, measureKeys, sourceOnlyVerdict } from './environment-key-timing.js';
import { markdownTable, ms, summary } from './stats.js';

/**
 * Prepared environments, in one run: (a) the time to a job's first attempt
 * (provider.open — pull check, setup or cache reuse, container start, copy-in —
 * then the command once) for a project whose setup installs PACKAGES packages
 * from the package-index stand-in, with a fresh cache key (cold) and with the
 * key of an earlier cold run (cached); (b) the same pip install through the
 * allowlisting egress proxy (the setup step's own duration in a cold run)
 * beside the identical command in a plain host-network container straight
 * against the stand-in. Rounds interleave cold, host and cached runs; the
 * first round is a warm-up and is not counted.
 */
const image = process.env.SELFDEBUG_TEST_IMAGE ?? 'selfdebug-executor:test';
const RUNS = Number.parseInt(process.env.BENCH_ENV_RUNS ?? '4', 10);
const PACKAGES = Number.parseInt(process.env.BENCH_ENV_PACKAGES ?? '50', 10);
const PAYLOAD_KB = Number.parseInt(process.env.BENCH_ENV_PAYLOAD_KB ?? '600', 10);
const REGISTRY_NAME = 'registry.test';
/** The bench's runs are one repository's default branch: every cached run reads the cold run's entry. */
const SCOPE = appScope({ installationId: 1, repositoryId: 1, branch: 'main', defaultBranch: 'main' });
const COMMAND = '.venv/bin/python -c "import sdpkg_001, sdpkg_010; print(sdpkg_010.hello())"';

interface Attempt {
  /** provider.open and the command, from the caller's side. */
  total: number;
  open: number;
  command: number;
  /** Inside open, from its progress lines: until setup starts (cold) or the cache answers (cached). */
  before: number;
  venv: number;
  install: number;
  /** Cold only: from the end of setup to "environment prepared" (clearing the sources, the commit, eviction). */
  snapshot: number;
  /** From "environment prepared"/"environment reused" to the end of open: the job container's create, start, copy-in. */
  start: number;
  dispose: number;
}

export async function benchEnvironment(): Promise<string> {
  const docker = new Docker();
  const index = await PackageIndex.start({
    packages: generatedPackages(Math.max(60, PACKAGES), { payloadBytes: PAYLOAD_KB * 1024 }),
  });
  const cacheDir = await mkdtemp(join(tmpdir(), 'bench-env-cache-'));
  const projects: string[] = [];
  const config = parseSandboxConfig({
    image,
    egressHosts: [`${REGISTRY_NAME}:${index.port}`],
    egressTrustedHosts: [REGISTRY_NAME],
    environmentCacheDir: cacheDir,
    // Room for every entry this run makes, so eviction never touches another process's entries on a shared engine.
    environmentCacheEntries: RUNS + 11,
  });
  // The stand-in has a name, as a real registry would; only the proxy resolves it (to the loopback).
  const provider = new DockerSandboxProvider(config, docker, undefined, undefined, {
    egressLookup: (hostname) => (hostname === REGISTRY_NAME ? '127.0.0.1' : null),
  });
  const install = (host: string) =>
    '.venv/bin/pip install --no-cache-dir --disable-pip-version-check --progress-bar off ' +
    `--trusted-host ${host} --index-url ${index.url(host)} -r requirements.txt`;
  const setup: SetupCommand[] = [
    { name: 'venv', command: 'python3 -m venv .venv' },
    { name: 'install', command: install(REGISTRY_NAME) },
  ];
  const requirements = Array.from(
    { length: PACKAGES },
    (_, position) => `sdpkg-${String(position + 1).padStart(3, '0')}`,
  );

  /**
   * A project whose requirements carry `nonce` in a comment: a new nonce, a new lockfile digest, a new key.
   * Its source file differs on every call: a cached run's source is never the cold run's.
   */
  async function project(nonce: string): Promise<{ dir: string; request: EnvironmentRequest }> {
    const dir = await mkdtemp(join(tmpdir(), 'bench-env-project-'));
    projects.push(dir);
    await writeFile(join(dir, 'requirements.txt'), `# bench ${nonce}\n${requirements.join('\n')}\n`);
    await writeFile(join(dir, 'app.py'), `print(${JSON.stringify(randomUUID())})\n`);
    const lockfiles = await setupInputDigests(dir, setup);
    return { dir, request: { setup, services: [], allowedHosts: [], lockfiles, cacheScope: SCOPE } };
  }

  let venvMegabytes = Number.NaN;
  async function firstAttempt(nonce: string, jobId: string): Promise<{ attempt: Attempt; reused: boolean }> {
    const { dir, request } = await project(nonce);
    const progress: { at: number; line: string }[] = [];
    const started = performance.now();
    const sandbox = await provider.open({
      jobId,
      workspace: dir,
      environment: request,
      onProgress: (line) => progress.push({ at: performance.now() - started, line }),
    });
    const opened = performance.now();
    let result: ExecResult;
    try {
      result = await sandbox.exec(COMMAND);
    } catch (error) {
      await sandbox.dispose();
      throw error;
    }
    const ended = performance.now();
    if (result.exitCode !== 0) {
      await sandbox.dispose();
      throw new Error(`the first attempt failed (exit ${result.exitCode}): ${result.output.slice(-500)}`);
    }
    if (Number.isNaN(venvMegabytes))
      venvMegabytes = Number.parseInt((await sandbox.exec('du -sm .venv')).stdout, 10);
    const disposing = performance.now();
    await sandbox.dispose();
    const disposed = performance.now();
    const preparation = sandbox.preparation;
    const steps = preparation?.setup ?? [];
    const duration = (name: string) =>
      steps.find((step) => step.command.name === name)?.result.durationMs ?? 0;
    const at = (prefix: string, last = false) => {
      const found = last
        ? progress.findLast((entry) => entry.line.startsWith(prefix))
        : progress.find((entry) => entry.line.startsWith(prefix));
      return found?.at ?? Number.NaN;
    };
    const reused = preparation?.reused != null;
    const ready = reused ? at('environment reused') : at('environment prepared');
    return {
      attempt: {
        total: ended - started,
        open: opened - started,
        command: ended - opened,
        before: reused ? ready : at('setup: '),
        venv: duration('venv'),
        install: duration('install'),
        snapshot: reused ? 0 : ready - at('setup: done', true),
        start: opened - started - ready,
        dispose: disposed - disposing,
      },
      reused,
    };
  }

  const cold: Attempt[] = [];
  const cached: Attempt[] = [];
  const host: number[] = [];
  const notes: string[] = [];
  let hostContainer: Docker.Container | null = null;
  const started = performance.now();
  try {
    // The baseline: the same image and limits as the setup container, but on the host's network, no proxy.
    hostContainer = await docker.createContainer({
      Image: image,
      Cmd: ['sleep', 'infinity'],
      Entrypoint: [],
      User: '0:0',
      WorkingDir: config.workdir,
      Labels: containerLabels('bench-env-host'),
      HostConfig: {
        NetworkMode: 'host',
        CapDrop: ['ALL'],
        CapAdd: ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'SETUID', 'SETGID'],
        SecurityOpt: ['no-new-privileges:true'],
        Tmpfs: { '/tmp': `rw,nosuid,nodev,size=${config.tmpSizeMb}m,mode=1777` },
        Memory: config.memoryMb * 1024 * 1024,
        MemorySwap: config.memoryMb * 1024 * 1024,
        NanoCpus: Math.round(config.cpus * 1e9),
        PidsLimit: config.pidsLimit,
        Init: true,
        IpcMode: 'private',
        LogConfig: { Type: 'none', Config: {} },
      },
    });
    await hostContainer.start();
    // Root, as setup runs: the fresh venv is kept in root's home.
    const baseline = new DockerSandbox(hostContainer, config, describeEndpoint(docker), { user: '0:0' });

    // A fresh venv for every run, as setup makes one, but copied from one made once (venv costs seconds, off the clock).
    const made = await baseline.exec('python3 -m venv .venv && cp -a .venv /root/venv-fresh');
    if (made.exitCode !== 0)
      throw new Error(`could not make the baseline's venv: ${made.output.slice(-500)}`);
    const direct = async (): Promise<number> => {
      const { dir } = await project('host');
      // copyIn clears what the previous run left (its .venv included) before copying.
      await baseline.copyIn(dir);
      const venv = await baseline.exec('cp -a /root/venv-fresh .venv');
      const result = await baseline.exec(install('127.0.0.1'));
      if (venv.exitCode !== 0 || result.exitCode !== 0)
        throw new Error(`the host-network install failed: ${(venv.output + result.output).slice(-500)}`);
      return result.durationMs;
    };

    for (let round = 0; round <= RUNS; round++) {
      const nonce = randomUUID();
      // Which side goes first alternates, so a slow stretch of the machine does not always hit the same one.
      let coldRun: Attempt | undefined;
      let hostRun: number | undefined;
      const runCold = async () => {
        const { attempt, reused } = await firstAttempt(nonce, `bench-env-cold-${round}`);
        if (reused) throw new Error('a cold run reused a prepared environment');
        coldRun = attempt;
      };
      const runHost = async () => {
        hostRun = await direct();
      };
      if (round % 2 === 0) {
        await runCold();
        await runHost();
      } else {
        await runHost();
        await runCold();
      }
      const { attempt, reused } = await firstAttempt(nonce, `bench-env-cached-${round}`);
      if (round === 0) continue;
      cold.push(coldRun!);
      host.push(hostRun!);
      if (reused) cached.push(attempt);
      else
        notes.push(
          `cached run ${round} found no prepared environment (evicted by another process?) and was not counted`,
        );
    }
  } finally {
    await hostContainer?.remove({ force: true, v: true }).catch(() => {});
    await removeOwnImages(docker, cacheDir);
    await index.close();
    await Promise.all([cacheDir, ...projects].map((dir) => rm(dir, { recursive: true, force: true })));
  }
  const elapsed = (performance.now() - started) / 1000;
  const keying = await measureKeys(process.cwd());
  return report({ cold, cached, host, notes, elapsed, venvMegabytes, keying });
}

function report(input: {
  cold: Attempt[];
  cached: Attempt[];
  host: number[];
  notes: string[];
  elapsed: number;
  venvMegabytes: number;
  keying: KeyTiming;
}): string {
  const { cold, cached, host } = input;
  const pick = (attempts: Attempt[], field: keyof Attempt) => attempts.map((attempt) => attempt[field]);
  const median = (samples: number[]) => summary(samples).median;
  const line = (label: string, samples: number[], ratio = '—') => {
    const { median, p90 } = summary(samples);
    return [label, samples.length, ms(median), ms(p90), ratio];
  };
  const coldMedian = median(pick(cold, 'total'));
  const cachedMedian = median(pick(cached, 'total'));
  const speedup = coldMedian / cachedMedian;
  const start = 'job container: create (the prepared `/workspace` copied into its volume), start, copy-in';
  const attempts = markdownTable(
    ['time to the first attempt', 'runs', 'median', 'p90', 'cold ÷ cached'],
    [
      line('**cold** (fresh key): open + command', pick(cold, 'total'), '1.00'),
      line('  image check, proxy, forwarder, setup container, copy-in', pick(cold, 'before')),
      line('  setup step `python3 -m venv .venv`', pick(cold, 'venv')),
      line(`  setup step \`pip install\` of ${PACKAGES} packages, through the proxy`, pick(cold, 'install')),
      line('  clearing the sources, commit of the prepared image, eviction', pick(cold, 'snapshot')),
      line(`  ${start}`, pick(cold, 'start')),
      line('  the command', pick(cold, 'command')),
      line(
        '**cached** (key of an earlier cold run): open + command',
        pick(cached, 'total'),
        speedup.toFixed(1),
      ),
      line('  image check, cache lookup', pick(cached, 'before')),
      line(`  ${start}`, pick(cached, 'start')),
      line('  the command', pick(cached, 'command')),
      line('dispose of a job container from a prepared image (not counted)', [
        ...pick(cold, 'dispose'),
        ...pick(cached, 'dispose'),
      ]),
    ],
  );
  const proxyMedian = median(pick(cold, 'install'));
  const hostMedian = median(host);
  const speed = hostMedian / proxyMedian;
  const megabytes = (PACKAGES * PAYLOAD_KB) / 1024;
  const download = markdownTable(
    [
      `pip install of ${PACKAGES} packages (${megabytes.toFixed(0)} MB)`,
      'runs',
      'median',
      'p90',
      'speed ÷ host',
    ],
    [
      line('host network, straight to the stand-in (baseline)', host, '1.00'),
      line('setup container, through the egress proxy', pick(cold, 'install'), speed.toFixed(2)),
    ],
  );
  const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
  const cachedStart = median(pick(cached, 'start'));
  return [
    '## Prepared environments (`bench/environment.ts`)',
    '',
    `A project whose setup is \`python3 -m venv .venv\` then \`pip install -r requirements.txt\` of ${PACKAGES} packages ` +
      `(about ${megabytes.toFixed(0)} MB of wheels, ${PAYLOAD_KB} KB of random data each) from the package-index stand-in ` +
      'on 127.0.0.1, reached under a registry name through the allowlisting egress proxy, as in ' +
      'test/integration/environment.test.ts. The time to the first attempt is `DockerSandboxProvider.open` (image check, ' +
      'setup or cache reuse, container start, workspace copy-in) plus the command once (importing two of the packages); ' +
      'the indented rows split it by open’s progress lines and the setup steps’ own durations. Cold runs change a comment ' +
      'in requirements.txt, so the key is new; cached runs open the key of the cold run just before them. The download ' +
      'compares the cold runs’ `pip install` step (its own duration, in the setup container behind the proxy) with the ' +
      'identical command in a container of the same image and limits (1 CPU) on the host network, straight to the ' +
      `stand-in. ${RUNS} rounds of cold, host and cached runs, interleaved, after one warm-up round ` +
      `(${input.elapsed.toFixed(0)} s in all).`,
    '',
    attempts,
    '',
    download,
    '',
    `Goals: cached ≥ 5× faster than cold — ${verdict(speedup >= 5)} (${speedup.toFixed(1)}×: ` +
      `${ms(coldMedian)} against ${ms(cachedMedian)}); download through the proxy ≥ 0.7× the host network’s speed — ` +
      `${verdict(speed >= 0.7)} (${speed.toFixed(2)}×: ${ms(proxyMedian)} against ${ms(hostMedian)}).`,
    '',
    `A cached open spends ${ms(cachedStart)} of its ${ms(median(pick(cached, 'open')))} creating and starting the job ` +
      `container: the prepared environment keeps the \`.venv\` (${input.venvMegabytes} MB) in \`/workspace\`, which is ` +
      'the job container’s anonymous volume, so the engine copies it into a fresh volume at every create and deletes ' +
      'it at every dispose. The stand-in and the proxy share this process (and its 2 cores with the engine and pip).',
    '',
    sourceOnlyVerdict(cached.length, input.keying),
    ...(input.notes.length > 0 ? ['', ...input.notes.map((note) => `- ${note}`)] : []),
  ].join('\n');
}

/** Removes the images this run's store made, and no other process's. */
async function removeOwnImages(docker: Docker, cacheDir: string): Promise<void> {
  const store = (await readFile(join(cacheDir, 'store-id'), 'utf8').catch(() => '')).trim();
  if (store === '') return;
  for (const found of await docker.listImages({ filters: { label: [`${STORE_LABEL}=${store}`] } }))
    await docker
      .getImage(found.Id)
      .remove({ force: true })
      .catch(() => {});
}
