import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { posix } from 'node:path';
import type { Duplex, Readable } from 'node:stream';
import type Docker from 'dockerode';
import type { SandboxConfig } from '../../config/sandbox-config.js';
import {
  nameTooLong,
  SelfdebugError,
  WorkspaceFullError,
  WorkspacePathError,
  WorkspaceTransferError,
  workspacePathProblem,
} from '../../errors/index.js';
import type { PreparationReport } from '../../sandbox/environment.js';
import { ExecLimits } from '../../sandbox/exec-limits.js';
import { OutputRecorder } from '../../sandbox/output-recorder.js';
import {
  type CopyInReport,
  type CopyOutReport,
  DEFAULT_FILE_MODE,
  type ExecOptions,
  type ExecResult,
  OOM_EXIT_CODE,
  OOM_REASON,
  type Sandbox,
  type WorkspaceFile,
} from '../../sandbox/sandbox.js';
import { workspacePath } from '../../sandbox/workspace-path.js';
import { replaceDirectoryContents } from '../../util/replace-directory-contents.js';
import { ContainerCalls, drain } from './container-calls.js';
import { PREPARED_WORKSPACE } from './environment-cache.js';
import { killCommand, OOM_COUNTER_COMMAND, parseOomCount, runCommand } from './exec-wrapper.js';
import { parseReadFile, readFileCommand, workspaceFile } from './path-check.js';
import { singleFileArchive } from './single-file-archive.js';
import { StreamDemuxer } from './stream-demuxer.js';
import { extractWorkspace, packWorkspace } from './workspace-archive.js';
import { WriteLanding } from './write-landing.js';

/** How long a killed command's stream may linger (a daemonised grandchild holding stdout) before we stop reading. */
const KILL_GRACE_MS = 2000;
/** Files larger than this are not read back whole (the model gets line ranges through exec instead). */
const MAX_READ_BYTES = 16 * 1024 * 1024;

/** Room for the read command's header (mode, resolved path, link target) before the file's bytes. */
const READ_HEADER_BYTES = 16 * 1024;

/** The numeric uid and gid of a `uid:gid` user setting. */
function ownerOf(user: string): { uid: number; gid: number } {
  const [uid = 1000, gid = uid] = user.split(':').map(Number);
  return { uid, gid };
}

/** A workspace path, refused before the engine sees a name no file system takes (it would answer a bare 500). */
function checkedPath(path: string): string {
  const relative = workspacePath(path);
  if (nameTooLong(relative)) throw workspacePathProblem(relative, 'name-too-long');
  return relative;
}

/** One job's container. Every command is an exec in it; `dispose` removes it with its workspace volume. */
export class DockerSandbox implements Sandbox {
  readonly kind = 'docker' as const;
  readonly workdir: string;
  /** What preparing the environment did; the provider adds what copying the workspace in removed. */
  preparation: PreparationReport | null;
  private disposing: Promise<void> | undefined;
  private readonly execUser: string;
  /** Calls into the engine for this container, with its errors mapped. */
  private readonly calls: ContainerCalls;
  private readonly landing: WriteLanding;
  private workspaceFilled = false;
  private oomKillsSeen = 0;

  constructor(
    private readonly container: Docker.Container,
    private readonly config: SandboxConfig,
    endpoint: string,
    extras: {
      preparation?: PreparationReport;
      alongside?: { removeAll(): Promise<void> };
      /** Who commands run as; the container's own user is another (see containerSpec). */
      user?: string;
    } = {},
  ) {
    this.execUser = extras.user ?? config.user;
    this.workdir = config.workdir;
    this.preparation = extras.preparation ?? null;
    this.alongside = extras.alongside ?? null;
    this.calls = new ContainerCalls(container, endpoint, this.execUser, () => this.disposed);
    this.landing = new WriteLanding(this.calls, this.workdir);
  }

  /** Containers that live and die with this one (the network holder, services). */
  private readonly alongside: { removeAll(): Promise<void> } | null;

  get id(): string {
    return this.container.id;
  }

  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    this.landing.forget();
    const timeoutSeconds = options.timeoutSeconds ?? this.config.commandTimeoutSeconds;
    const started = performance.now();
    const pidFile = `/tmp/.selfdebug-exec-${randomUUID()}`;
    const recorder = new OutputRecorder(
      options.maxOutputBytes ?? this.config.maxOutputBytes,
      options.onOutput,
    );
    const demuxer = new StreamDemuxer((stream, payload) => recorder.write(stream, payload));

    const { exec, stream } = await this.startExec(runCommand(pidFile, command, timeoutSeconds), options);

    const limits = new ExecLimits(timeoutSeconds, options.signal, () => {
      void this.killProcessGroup(pidFile).finally(() =>
        setTimeout(() => stream.destroy(), KILL_GRACE_MS).unref(),
      );
    });
    const watch = this.calls.watch(stream);
    await drain(stream, demuxer);
    limits.release();
    watch.stop();

    const output = recorder.result();
    const durationMs = Math.round(performance.now() - started);
    // A command the job cancelled or timed out is reported so, even when its container went down with it.
    const stopped = limits.result(output, durationMs);
    if (stopped) return stopped;
    if (watch.died()) return this.calls.deathResult(output, durationMs);
    const exitCode = await this.calls.exitCodeOf(exec);
    if (exitCode === OOM_EXIT_CODE && (await this.wasOomKilled())) {
      return { ...output, exitCode, end: 'oom-killed', reason: OOM_REASON, durationMs };
    }
    return { ...output, exitCode, end: 'exited', reason: null, durationMs };
  }

  private async startExec(
    cmd: string[],
    options: ExecOptions,
  ): Promise<{ exec: Docker.Exec; stream: Duplex }> {
    const exec = await this.calls.engine(() =>
      this.container.exec({
        User: this.execUser,
        Cmd: cmd,
        AttachStdin: false,
        AttachStdout: true,
        AttachStderr: true,
        Tty: false,
        Env: Object.entries(options.env ?? {}).map(([name, value]) => `${name}=${value}`),
        WorkingDir: posix.join(this.workdir, options.cwd ?? '.'),
      }),
    );
    const stream = (await this.calls.engine(() => exec.start({ hijack: true, stdin: false }))) as Duplex;
    return { exec, stream };
  }

  async readFile(path: string): Promise<WorkspaceFile | null> {
    this.landing.forget();
    const relative = checkedPath(path);
    // Read by a command run as the sandbox user: the engine's archive API would read as root.
    const read = await this.calls.runBytes(
      readFileCommand(this.workdir, relative, MAX_READ_BYTES),
      MAX_READ_BYTES + READ_HEADER_BYTES,
    );
    if (read.exitCode !== 0)
      throw new WorkspaceTransferError('out', `could not read ${relative}: ${read.stderr.slice(0, 500)}`);
    const outcome = parseReadFile(relative, read.stdout);
    if (outcome instanceof WorkspacePathError) throw outcome;
    if (outcome === null || outcome.content.length > MAX_READ_BYTES) return null;
    this.landing.read(relative, outcome.resolved);
    return workspaceFile(relative, outcome);
  }

  async writeFile(path: string, content: string | Buffer, mode = DEFAULT_FILE_MODE): Promise<void> {
    const relative = checkedPath(path);
    const bytes = typeof content === 'string' ? Buffer.from(content) : content;
    const landing = await this.landing.of(relative);
    try {
      await this.container.putArchive(singleFileArchive(landing.resolved, bytes, mode, this.owner()), {
        path: this.workdir,
      });
    } catch (error) {
      throw this.transferError('in', error);
    }
  }

  private owner(): { uid: number; gid: number } {
    return ownerOf(this.config.user);
  }

  async copyIn(hostDir: string): Promise<CopyInReport> {
    this.landing.forget();
    if (this.workspaceFilled) {
      const cleared = await this.calls.runQuiet(['find', this.workdir, '-mindepth', '1', '-delete']);
      if (cleared.exitCode !== 0) {
        throw new WorkspaceTransferError(
          'in',
          `could not clear ${this.workdir}: ${cleared.output.slice(0, 500)}`,
        );
      }
    }
    const { archive, removed } = packWorkspace(hostDir, this.owner());
    try {
      await this.container.putArchive(archive, { path: this.workdir });
      this.workspaceFilled = true;
      return { removed: await removed };
    } catch (error) {
      throw this.transferError('in', error);
    }
  }

  async copyOut(hostDir: string): Promise<CopyOutReport> {
    await mkdir(hostDir, { recursive: true });
    try {
      const archive = (await this.container.getArchive({ path: this.workdir })) as unknown as Readable;
      const limits = {
        maxBytes: this.config.maxCopyOutMb * 1024 * 1024,
        maxEntries: this.config.maxCopyOutFiles,
        reader: ownerOf(this.execUser),
      };
      // The host's .git stays: the sandbox's copy of it is never taken (see extractWorkspace).
      const refused = await replaceDirectoryContents(
        hostDir,
        (staging) => extractWorkspace(archive, staging, limits),
        ['.git'],
      );
      return { refused };
    } catch (error) {
      throw this.transferError('out', error);
    }
  }

  dispose(): Promise<void> {
    // Concurrent callers (an abort and a finally block) all wait for the same removal.
    this.disposing ??= this.remove();
    return this.disposing;
  }

  private get disposed(): boolean {
    return this.disposing !== undefined;
  }

  private async remove(): Promise<void> {
    try {
      await this.container.remove({ force: true, v: true });
    } catch (error) {
      // Already gone (removed by the reaper or by hand) is the state we want.
      if ((error as { statusCode?: number }).statusCode !== 404) throw this.calls.mapped(error);
    } finally {
      await this.alongside?.removeAll();
    }
  }

  /** A command that used up the pids limit can make the kill exec itself fail to start: try a few times. */
  private async killProcessGroup(pidFile: string): Promise<void> {
    for (let attempt = 0; attempt < 10 && !this.disposed; attempt++) {
      try {
        if ((await this.calls.runQuiet(killCommand(pidFile))).exitCode === 0) return;
      } catch {
        // Retried below; the stream is destroyed after the grace period regardless.
      }
      await new Promise((resolve) => setTimeout(resolve, 100 * (attempt + 1)));
    }
  }

  /** A 137 is an OOM kill only if the container's cgroup counted one more since the last look. */
  private async wasOomKilled(): Promise<boolean> {
    const counted = parseOomCount((await this.calls.runQuiet(OOM_COUNTER_COMMAND)).stdout);
    if (counted === null) {
      const state = await this.calls.engine(() => this.container.inspect());
      return state.State.OOMKilled === true;
    }
    const fresh = counted > this.oomKillsSeen;
    this.oomKillsSeen = counted;
    return fresh;
  }

  /**
   * Puts what setup installed (kept in the prepared image outside the
   * workspace, see stowPrepared) back into the workspace, where setup's
   * absolute paths expect it. Runs in the container, so it counts against
   * the workspace limit like anything else the job writes.
   */
  async restorePrepared(): Promise<void> {
    this.landing.forget();
    const restored = await this.calls.runQuiet([
      'sh',
      '-c',
      '[ ! -d "$0" ] || cp -a "$0"/. "$1"/',
      PREPARED_WORKSPACE,
      this.workdir,
    ]);
    if (restored.exitCode === 0) return;
    if (/no space left on device/i.test(restored.output))
      throw new WorkspaceFullError('What setup installed', this.config.workspaceMb);
    throw new WorkspaceTransferError(
      'in',
      `could not restore the prepared environment: ${restored.output.slice(0, 500)}`,
    );
  }

  private transferError(direction: 'in' | 'out', error: unknown): SelfdebugError {
    if (error instanceof SelfdebugError) return error;
    if (direction === 'in' && /no space left on device/i.test(String((error as Error).message ?? error)))
      return new WorkspaceFullError('The repository', this.config.workspaceMb, { cause: error });
    const status = (error as { statusCode?: number }).statusCode;
    if (status !== undefined || (error as { code?: string }).code === 'ECONNREFUSED')
      return this.calls.mapped(error);
    return new WorkspaceTransferError(direction, error instanceof Error ? error.message : String(error), {
      cause: error,
    });
  }
}
