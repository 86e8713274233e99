import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REAL_PROJECTS, type RealProject } from './real-projects-list.js';
import { markdownTable } from './stats.js';

/**
 * Real open-source packages, fixed as a new user would: each is fetched from
 * the npm registry this machine is configured with (`npm pack`), given one
 * injected bug, and handed to `selfdebug fix --setup "npm ci"` in the default
 * image with a replayed fix (no model server). The registry, its CA and the
 * host allowed for setup are the operator settings (`--setup-env-file`,
 * `--ca-certs`, `--allow-host`), read from the host's own npm configuration at
 * run time, so no registry host is written anywhere. Each project runs twice:
 * cold (a key nobody built before: its package.json carries this run's nonce)
 * and cached (a fresh copy of the same buggy project, which reuses it).
 */
const run = promisify(execFile);
const image =
  process.env.BENCH_REAL_IMAGE ?? process.env.SELFDEBUG_SANDBOX_IMAGE ?? 'selfdebug-executor:latest';
const CLI = new URL('../dist/cli/main.js', import.meta.url).pathname;

interface Operator {
  caFile: string;
  envFile: string;
  host: string;
}

interface Outcome {
  exitCode: number;
  seconds: number;
  reproduced: boolean;
  reused: boolean;
  tail: string;
}

export async function benchRealProjects(): Promise<string> {
  const work = await mkdtemp(join(tmpdir(), 'bench-real-'));
  const nonce = randomUUID().slice(0, 8);
  const rows: string[][] = [];
  try {
    const operator = await operatorSettings(work);
    for (const project of REAL_PROJECTS) {
      const source = await fetchProject(project, work, nonce);
      // The same folder both times: the CLI's cache entries belong to the user and the folder.
      const dir = join(work, project.name);
      const cold = await fixOnce(project, source, dir, operator);
      const cached = await fixOnce(project, source, dir, operator);
      rows.push(row(project, cold, cached));
      if (cold.exitCode !== 0 || cached.exitCode !== 0)
        process.stderr.write(`${project.name}: not fixed\n${cold.tail}\n${cached.tail}\n`);
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return [
    '## Real projects (`bench/real-projects.ts`)',
    '',
    `${REAL_PROJECTS.length} packages fetched from the npm registry with \`npm pack\` while the bench runs, one bug`,
    'injected into each, fixed by `selfdebug fix --setup "npm ci"` with a replayed answer in the default image',
    `(\`${image}\`). The registry, its CA and the allowed host come from the host's npm configuration through the`,
    'operator settings. Cold: a key never built; cached: a fresh copy of the same buggy project in the same folder,',
    'reusing the prepared environment.',
    '',
    markdownTable(
      [
        'package',
        'test runner',
        'reproduced',
        'fixed (cold)',
        'cold',
        'fixed (cached)',
        'cached',
        'reused',
        'cold ÷ cached',
      ],
      rows,
    ),
  ].join('\n');
}

function row(project: RealProject, cold: Outcome, cached: Outcome): string[] {
  const yes = (value: boolean) => (value ? 'yes' : 'no');
  return [
    `${project.name}@${project.version}`,
    project.runner,
    yes(cold.reproduced && cached.reproduced),
    yes(cold.exitCode === 0),
    `${cold.seconds.toFixed(1)} s`,
    yes(cached.exitCode === 0),
    `${cached.seconds.toFixed(1)} s`,
    yes(cached.reused),
    `${(cold.seconds / cached.seconds).toFixed(1)}×`,
  ];
}

/** What an operator behind this host's network would set: its registry, the CAs it trusts, that host allowed. */
async function operatorSettings(work: string): Promise<Operator> {
  const registry = (await run('npm', ['config', 'get', 'registry'])).stdout.trim();
  const cafile = (await run('npm', ['config', 'get', 'cafile'])).stdout.trim();
  const bundles = [cafile, process.env.NODE_EXTRA_CA_CERTS, '/etc/ssl/certs/ca-certificates.crt'];
  const pems: string[] = [];
  for (const path of bundles) {
    if (!path || path === 'null' || path === 'undefined') continue;
    pems.push(await readFile(path, 'utf8').catch(() => ''));
  }
  const caFile = join(work, 'operator-ca.pem');
  await writeFile(caFile, pems.filter(Boolean).join('\n'));
  const envFile = join(work, 'setup.env');
  await writeFile(envFile, `npm_config_registry=${registry}\n`);
  return { caFile, envFile, host: new URL(registry).hostname };
}

/** The published package, unpacked, with the bench's test where it ships none, a lockfile, and the bug. */
async function fetchProject(project: RealProject, work: string, nonce: string): Promise<string> {
  const packed = join(work, 'packed');
  await mkdir(packed, { recursive: true });
  const { stdout } = await run('npm', ['pack', `${project.name}@${project.version}`, '--silent'], {
    cwd: packed,
  });
  const folder = join(work, `${project.name}-source`);
  await mkdir(folder, { recursive: true });
  await run('tar', [
    '-xzf',
    join(packed, stdout.trim().split('\n').at(-1) ?? ''),
    '-C',
    folder,
    '--strip-components=1',
  ]);
  const manifestPath = join(folder, 'package.json');
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Record<string, unknown>;
  manifest.description = `${String(manifest.description ?? '')} (bench ${nonce})`;
  // A package tested by the bench's own file needs only that file's runner, not its own lint and hooks;
  // one tested by its own tests keeps the devDependencies those tests load (lint toolchains are left out).
  if (project.files) {
    manifest.scripts = project.scripts ?? {};
    manifest.devDependencies = project.devDependencies ?? {};
  } else if (project.testDependencies) {
    const all = (manifest.devDependencies ?? {}) as Record<string, string>;
    manifest.devDependencies = Object.fromEntries(
      Object.entries(all).filter(([name]) => project.testDependencies?.includes(name)),
    );
    // Only the script the command runs: the release hooks (prepublish…) need the tooling left out.
    const script = project.command.replace(/^npm (run )?/, '');
    manifest.scripts = { [script]: (manifest.scripts as Record<string, string>)[script] };
  }
  await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  for (const [path, content] of Object.entries(project.files ?? {}))
    await writeFile(join(folder, path), content);
  await run('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: folder,
  });
  const target = join(folder, project.bug.path);
  const original = await readFile(target, 'utf8');
  if (!original.includes(project.bug.fixed))
    throw new Error(`${project.name}@${project.version}: the text to break is not in ${project.bug.path}`);
  await writeFile(target, original.replace(project.bug.fixed, project.bug.broken));
  return folder;
}

/** One `selfdebug fix` on a fresh copy of the buggy project, as a process, timed from the outside. */
async function fixOnce(
  project: RealProject,
  source: string,
  dir: string,
  operator: Operator,
): Promise<Outcome> {
  await rm(dir, { recursive: true, force: true });
  await run('cp', ['-a', source, dir]);
  const replay = join(dir, '..', `${project.name}-replay.json`);
  await writeFile(replay, JSON.stringify(replayFor(project)));
  const args = [
    CLI,
    'fix',
    '--dir',
    dir,
    '--image',
    image,
    '--setup',
    'npm ci',
    '--command',
    project.command,
  ];
  args.push('--replay', replay, '--max-attempts', '2', '--allow-host', operator.host);
  args.push('--ca-certs', operator.caFile, '--setup-env-file', operator.envFile);
  const started = performance.now();
  const { code, output } = await spawned(process.execPath, args);
  const seconds = (performance.now() - started) / 1000;
  return {
    exitCode: code,
    seconds,
    reproduced: /reproduce: .*failing/.test(output),
    reused: /environment reused/.test(output),
    tail: output.split('\n').slice(-25).join('\n'),
  };
}

function replayFor(project: RealProject): unknown {
  return {
    model: 'bench-replay',
    responses: [
      {
        purpose: 'generate',
        json: {
          analysis: project.analysis,
          edits: [{ path: project.bug.path, search: project.bug.broken, replace: project.bug.fixed }],
        },
      },
      {
        purpose: 'reflect',
        json: {
          summary: project.analysis,
          rootCause: project.analysis,
          changes: 'restored it',
          confidence: 'high',
          risks: [],
        },
      },
    ],
  };
}

function spawned(command: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, NO_COLOR: '1' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, output }));
  });
}
