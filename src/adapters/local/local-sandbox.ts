import { type ChildProcess, spawn } from 'node:child_process';
import { cp, lstat, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { Environment } from '../../config/read-environment.js';
import type { SandboxConfig } from '../../config/sandbox-config.js';
import { WorkspacePathError } from '../../errors/index.js';
import { CredentialPlan, credentialRule } from '../../sandbox/credential-plan.js';
import type { PreparationReport } from '../../sandbox/environment.js';
import { ExecLimits } from '../../sandbox/exec-limits.js';
import { OutputRecorder } from '../../sandbox/output-recorder.js';
import { removeLinksLeaving, resolveInside, symlinksUnder } from '../../sandbox/resolve-inside.js';
import {
  type CopyInReport,
  type CopyOutReport,
  DEFAULT_FILE_MODE,
  type ExecOptions,
  type ExecResult,
  type Sandbox,
  type WorkspaceFile,
} from '../../sandbox/sandbox.js';
import { workspacePath } from '../../sandbox/workspace-path.js';
import { replaceDirectoryContents } from '../../util/replace-directory-contents.js';
import { realTimers, type Timers } from '../../util/timers.js';
import { mapFileError } from './file-errors.js';
import { readResolved, writeResolved } from './workspace-files.js';

/** Host variables a shell needs to find its tools; nothing else of the host (tokens!) is passed on. */
const PASSED_HOST_VARIABLES = ['PATH', 'LANG', 'LC_ALL', 'TZ'];

/**
 * Commands run as child processes of this one, in a temporary copy of the
 * workspace. No isolation whatsoever: development only.
 */
export class LocalSandbox implements Sandbox {
  readonly kind = 'local' as const;
  /** Filled by the provider once setup ran here. */
  preparation: PreparationReport | null = null;
  private disposing: Promise<void> | undefined;

  constructor(
    readonly root: string,
    private readonly config: SandboxConfig,
    /** What every command gets of the host's variables (passedHostVariables). */
    private readonly hostVariables: Readonly<Record<string, string>>,
    /** Times each command's limit; the real scheduler unless a test brings its own. */
    private readonly timers: Timers = realTimers,
  ) {}

  get id(): string {
    return this.root;
  }

  get workdir(): string {
    return join(this.root, 'workspace');
  }

  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    const timeoutSeconds = options.timeoutSeconds ?? this.config.commandTimeoutSeconds;
    const recorder = new OutputRecorder(
      options.maxOutputBytes ?? this.config.maxOutputBytes,
      options.onOutput,
    );
    const started = performance.now();
    const child = spawn('bash', ['-c', command], {
      cwd: join(this.workdir, options.cwd ?? '.'),
      env: {
        ...this.hostVariables,
        HOME: join(this.root, 'home'),
        TMPDIR: join(this.root, 'tmp'),
        ...options.env,
      },
      // A process group of its own, so a timeout kills the whole tree with one signal.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => recorder.write('stdout', chunk));
    child.stderr.on('data', (chunk: Buffer) => recorder.write('stderr', chunk));

    const limits = new ExecLimits(timeoutSeconds, options.signal, () => killGroup(child), this.timers);
    const exitCode = await new Promise<number>((resolve) => {
      child.once('error', () => resolve(127));
      child.once('close', (code, signal) => resolve(code ?? 128 + signalNumber(signal)));
    });
    limits.release();
    // Background processes the command left behind die with it, as in the Docker sandbox.
    killGroup(child);

    const output = recorder.result();
    const durationMs = Math.round(performance.now() - started);
    return (
      limits.result(output, durationMs) ?? { ...output, exitCode, end: 'exited', reason: null, durationMs }
    );
  }

  async readFile(path: string): Promise<WorkspaceFile | null> {
    const relative = workspacePath(path);
    // Here a link out of the workspace would reach the host's own files.
    try {
      const place = await resolveInside(this.workdir, relative);
      if (place instanceof WorkspacePathError) throw place;
      if (!place.exists) return null;
      return await readResolved(this.workdir, relative, place);
    } catch (error) {
      throw (await mapFileError(error, relative, this.workdir)) ?? error;
    }
  }

  async writeFile(path: string, content: string | Buffer, mode = DEFAULT_FILE_MODE): Promise<void> {
    const relative = workspacePath(path);
    try {
      const place = await resolveInside(this.workdir, relative);
      if (place instanceof WorkspacePathError) throw place;
      await writeResolved(this.workdir, place.resolved, content, mode);
    } catch (error) {
      throw (await mapFileError(error, relative, this.workdir)) ?? error;
    }
  }

  async copyIn(hostDir: string): Promise<CopyInReport> {
    const plan = new CredentialPlan();
    await replaceDirectoryContents(this.workdir, async (staging) => {
      await cp(hostDir, staging, {
        recursive: true,
        verbatimSymlinks: true,
        preserveTimestamps: true,
        filter: async (source) => {
          const path = relative(hostDir, source).split(sep).join('/');
          if (path === '' || credentialRule(path) === null) return true;
          return plan.admit(path, (await lstat(source)).isFile() ? 'file' : 'other');
        },
      });
      for (const { path, content } of await plan.rewrites((file) => readFile(join(hostDir, file))))
        await writeFile(join(staging, path), content, { mode: (await lstat(join(hostDir, path))).mode });
    });
    return { removed: plan.removed };
  }

  async copyOut(hostDir: string): Promise<CopyOutReport> {
    await mkdir(hostDir, { recursive: true });
    // As the port promises, the host's .git is never replaced by the sandbox's copy.
    const refused = await replaceDirectoryContents(
      hostDir,
      async (staging) => {
        await copyTree(this.workdir, staging);
        // The sandbox's .git never replaces the host's, so its links are not judged.
        const links = (await symlinksUnder(staging)).filter((link) => !link.startsWith('.git/'));
        return removeLinksLeaving(staging, links);
      },
      ['.git'],
    );
    return { refused };
  }

  dispose(): Promise<void> {
    // Concurrent callers (an abort and a finally block) all wait for the same removal.
    this.disposing ??= rm(this.root, { recursive: true, force: true });
    return this.disposing;
  }
}

function copyTree(from: string, to: string): Promise<void> {
  return cp(from, to, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
}

/** The few of `host` (the variables selfdebug was started with) that a shell needs to find its tools. */
export function passedHostVariables(host: Environment): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PASSED_HOST_VARIABLES) {
    const value = host[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
}

function signalNumber(signal: NodeJS.Signals | null): number {
  const numbers: Partial<Record<NodeJS.Signals, number>> = {
    SIGKILL: 9,
    SIGTERM: 15,
    SIGINT: 2,
    SIGSEGV: 11,
    SIGABRT: 6,
  };
  return (signal && numbers[signal]) || 1;
}
