#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { DoctorPorts } from '../doctor/doctor-checks.js';
import type { OutputStream } from './output-stream.js';
import { parseArguments, USAGE } from './parse-arguments.js';

export type { OutputStream } from './output-stream.js';

export interface RunOptions {
  stdout: OutputStream;
  stderr: OutputStream;
  /** What `doctor` checks against; tests pass their own so they need no Docker engine, model server or GitHub. */
  doctorPorts?: DoctorPorts;
  /** Where settings come from; process.env unless a test passes its own. */
  env?: Record<string, string | undefined>;
  /** Whether stdout is a terminal (colors, spinner); false unless the entry point says so. */
  isTTY?: boolean;
  /** What `excerpt -` reads; process.stdin unless a test passes its own. */
  stdin?: AsyncIterable<Uint8Array | string>;
}

/** Runs one CLI invocation and returns its exit code: 0 done, 1 failed, 2 misused. */
export async function run(argv: readonly string[], options: RunOptions): Promise<number> {
  const request = parseArguments(argv);
  const io = { stdout: options.stdout, stderr: options.stderr, env: options.env ?? process.env };
  switch (request.kind) {
    case 'help':
      options.stdout.write(`${USAGE}\n`);
      return 0;
    case 'version':
      options.stdout.write(`${readVersion()}\n`);
      return 0;
    case 'doctor':
      return doctor(request, options);
    case 'config': {
      const { runConfigCommand } = await import('./config-command.js');
      return runConfigCommand(request.argv, io);
    }
    case 'fix': {
      // Loaded on demand so `help` and `--version` never load the loop, Docker or OpenAI clients.
      const { runFix } = await import('./fix-command.js');
      return runFix(request.argv, { ...io, isTTY: options.isTTY ?? false });
    }
    case 'eval': {
      const { runEvalCommand } = await import('./eval-command.js');
      return runEvalCommand(request.argv, io);
    }
    case 'worker': {
      const { runWorkerCommand } = await import('./worker-command.js');
      return runWorkerCommand(request.argv, io);
    }
    case 'excerpt': {
      const { runExcerpt } = await import('./excerpt-command.js');
      const input = options.stdin ? { stdin: options.stdin } : {};
      return runExcerpt(request.argv, { stdout: options.stdout, stderr: options.stderr, ...input });
    }
    case 'usage-error':
      options.stderr.write(`selfdebug: ${request.message}\nRun "selfdebug help" for usage.\n`);
      return 2;
  }
}

/** `selfdebug doctor`: the App's checks, or with `--model` the model server's. */
async function doctor(
  request: Extract<ReturnType<typeof parseArguments>, { kind: 'doctor' }>,
  options: RunOptions,
): Promise<number> {
  // Probot reads ./.env when the App starts, so the checks do too (the environment wins).
  const { withDotEnv } = await import('./doctor-command.js');
  const settings = options.env ? { env: options.env, source: undefined } : await withDotEnv(process.env);
  if (!request.model) {
    const { runDoctor } = await import('./doctor-command.js');
    return runDoctor({
      stdout: options.stdout,
      env: settings.env,
      source: settings.source,
      github: request.github === true,
      ...(options.doctorPorts ? { ports: options.doctorPorts } : {}),
    });
  }
  const { runDoctorModel } = await import('./doctor-model.js');
  return runDoctorModel({ stdout: options.stdout, stderr: options.stderr, env: settings.env });
}

/** The package version, read from package.json beside src/ or dist/ (both sit two levels below it). */
export function readVersion(): string {
  const manifest: unknown = createRequire(import.meta.url)('../../package.json');
  if (typeof manifest === 'object' && manifest !== null && 'version' in manifest) {
    if (typeof manifest.version === 'string') return manifest.version;
  }
  throw new Error('package.json has no "version" string; reinstall selfdebug');
}

/** True when node (or tsx) was started on this file, also through npm's bin symlink. */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  process.exitCode = await run(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    isTTY: process.stdout.isTTY === true,
  });
}
