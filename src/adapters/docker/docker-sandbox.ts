import { randomUUID } from 'node:crypto';
import { posix } from 'node:path';
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import type { SandboxConfig } from '../../config/sandbox-config.js';
import type { PreparationReport } from '../../sandbox/environment.js';
import { ExecLimits } from '../../sandbox/exec-limits.js';
import { OutputRecorder } from '../../sandbox/output-recorder.js';
import type {
  CopyInReport,
  CopyOutReport,
  ExecOptions,
  ExecResult,
  Sandbox,
  WorkspaceFile,
} from '../../sandbox/sandbox.js';
import { OOM_EXIT_CODE, OOM_REASON } from '../../sandbox/sandbox.js';
import { ContainerCalls, drain } from './container-calls.js';
import { killCommand, OOM_COUNTER_COMMAND, parseOomCount, runCommand } from './exec-wrapper.js';
import { StreamDemuxer } from './stream-demuxer.js';
import { WorkspaceFiles } from './workspace-files.js';

/** How long a killed command's stream may linger (a daemonised grandchild holding stdout) before we stop reading. */
const KILL_GRACE_MS = 2000;
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
  private readonly files: WorkspaceFiles;
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
    this.files = new WorkspaceFiles(container, this.calls, config, this.execUser);
  }

  /** Containers that live and die with this one (the network holder, services). */
  private readonly alongside: { removeAll(): Promise<void> } | null;

  get id(): string {
    return this.container.id;
  }

  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
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

  readFile(path: string): Promise<WorkspaceFile | null> {
    return this.files.readFile(path);
  }

  writeFile(path: string, content: string | Buffer, mode?: number): Promise<void> {
    return this.files.writeFile(path, content, mode);
  }

  copyIn(hostDir: string): Promise<CopyInReport> {
    return this.files.copyIn(hostDir);
  }

  copyOut(hostDir: string): Promise<CopyOutReport> {
    return this.files.copyOut(hostDir);
  }

  /** Puts what setup installed back into the workspace (see WorkspaceFiles.restorePrepared). */
  restorePrepared(): Promise<void> {
    return this.files.restorePrepared();
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
}
