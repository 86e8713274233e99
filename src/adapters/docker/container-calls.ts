import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { ContainerDiedError, type SelfdebugError } from '../../errors/index.js';
import { OutputRecorder } from '../../sandbox/output-recorder.js';
import { type ExecResult, OOM_EXIT_CODE, OOM_REASON } from '../../sandbox/sandbox.js';
import { mapDockerError } from './map-docker-error.js';
import { type DemuxedStream, StreamDemuxer } from './stream-demuxer.js';

/**
 * The engine calls a sandbox makes on its container, each with its failure
 * mapped to our errors: a 409 (the container is not running) becomes a
 * ContainerDiedError that says why it died, once the container is asked.
 */
export class ContainerCalls {
  constructor(
    private readonly container: Docker.Container,
    private readonly endpoint: string,
    private readonly user: string,
    private readonly disposed: () => boolean,
  ) {}

  /** Runs a helper command of our own (kill, clear, counters) and returns its stdout. */
  async runQuiet(cmd: string[]): Promise<{ exitCode: number; stdout: string; output: string }> {
    const recorder = new OutputRecorder(64 * 1024);
    const exitCode = await this.run(cmd, (name, payload) => recorder.write(name, payload));
    const { stdout, output } = recorder.result();
    return { exitCode, stdout, output };
  }

  /**
   * Runs `cmd` as the sandbox user, handing each frame of its output to
   * `onFrame`, with `input` (when given) as its stdin, closed after it;
   * returns its exit code.
   */
  private async run(
    cmd: string[],
    onFrame: (stream: DemuxedStream, payload: Buffer) => void,
    input?: Buffer,
  ): Promise<number> {
    const stdin = input !== undefined;
    const exec = await this.engine(() =>
      this.container.exec({
        Cmd: cmd,
        User: this.user,
        AttachStdin: stdin,
        AttachStdout: true,
        AttachStderr: true,
        Tty: false,
      }),
    );
    const stream = (await this.engine(() => exec.start({ hijack: true, stdin }))) as Duplex;
    const drained = drain(stream, new StreamDemuxer(onFrame));
    // Ending the stream half-closes the connection, which the engine passes on as the end of stdin. A
    // command that exits without reading it (a refused path) closes the stream; drain sees the error.
    if (stdin) stream.end(input);
    await drained;
    return this.exitCodeOf(exec);
  }

  /**
   * Runs a helper command and keeps its stdout as bytes (a file's content),
   * at most `maxBytes` of them; stderr is kept as text for the error message.
   * `input` is the command's stdin (a file's content to write).
   */
  async runBytes(
    cmd: string[],
    maxBytes: number,
    input?: Buffer,
  ): Promise<{ exitCode: number; stdout: Buffer; stderr: string }> {
    const stdout: Buffer[] = [];
    const stderr = new OutputRecorder(16 * 1024);
    let kept = 0;
    const exitCode = await this.run(
      cmd,
      (name, payload) => {
        if (name === 'stderr') stderr.write(name, payload);
        else if (kept < maxBytes) {
          stdout.push(payload.subarray(0, maxBytes - kept));
          kept += payload.length;
        }
      },
      input,
    );
    return {
      exitCode,
      stdout: Buffer.concat(stdout),
      stderr: stderr.result().stderr,
    };
  }

  async exitCodeOf(exec: Docker.Exec): Promise<number> {
    const info = await this.engine(() => exec.inspect());
    if (typeof info.ExitCode === 'number' && !info.Running) return info.ExitCode;
    throw await this.diedError("the command's output ended but it has no exit code");
  }

  async engine<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      const mapped = this.mapped(error);
      if ((error as { statusCode?: number }).statusCode === 409)
        throw await this.diedError(mapped.message, error);
      throw mapped;
    }
  }

  async diedError(detail: string, cause?: unknown): Promise<ContainerDiedError> {
    try {
      const { State } = await this.container.inspect();
      const oomKilled = State.OOMKilled === true;
      const how = oomKilled ? OOM_REASON : `status ${State.Status}, exit code ${State.ExitCode}`;
      return new ContainerDiedError(this.container.id, how, { cause, oomKilled });
    } catch {
      return new ContainerDiedError(this.container.id, this.disposed() ? 'it was removed' : detail, {
        cause,
      });
    }
  }

  /**
   * Ends the exec's stream when the container itself stops. Under gVisor a
   * command over the memory limit makes the host's OOM killer end the whole
   * sandbox, and the engine then never closes the exec's stream: without
   * this, the exec would hang until the command's time limit.
   */
  watch(stream: Duplex): { died(): boolean; stop(): void } {
    const watching = new AbortController();
    let died = false;
    this.container.wait({ condition: 'not-running', abortSignal: watching.signal }).then(
      () => {
        died = !watching.signal.aborted;
        if (died) stream.destroy();
      },
      // Aborted once the command ended, or the engine could not watch: the stream still ends on its own.
      () => undefined,
    );
    return { died: () => died, stop: () => watching.abort() };
  }

  /** The container stopped under the command: out of memory (gVisor's way of enforcing it), or an error saying why. */
  async deathResult(output: ReturnType<OutputRecorder['result']>, durationMs: number): Promise<ExecResult> {
    const { State } = await this.engine(() => this.container.inspect());
    if (State.OOMKilled === true || State.ExitCode === OOM_EXIT_CODE) {
      return { ...output, exitCode: OOM_EXIT_CODE, end: 'oom-killed', reason: OOM_REASON, durationMs };
    }
    throw await this.diedError('the container stopped while the command ran');
  }

  mapped(error: unknown): SelfdebugError {
    return mapDockerError(error, { endpoint: this.endpoint, containerId: this.container.id });
  }
}

/** Feeds an exec's stream to the demuxer until the stream ends, closes or fails. */
export function drain(stream: Duplex, demuxer: StreamDemuxer): Promise<void> {
  return new Promise<void>((resolve) => {
    stream.on('data', (chunk: Buffer) => demuxer.push(chunk));
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', () => resolve());
  });
}
