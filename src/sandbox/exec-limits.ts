import { realTimers, type Timers } from '../util/timers.js';
import {
  CANCELLED_EXIT_CODE,
  CANCELLED_REASON,
  type ExecResult,
  TIMEOUT_EXIT_CODE,
  timeoutReason,
} from './sandbox.js';

export type StopReason = 'timed-out' | 'cancelled';

/**
 * Stops a running command once, when its time limit passes or its signal
 * aborts, whichever comes first; what stopped it decides how it is reported.
 */
export class ExecLimits {
  #stoppedBy: StopReason | null = null;
  readonly #timers: Timers;
  readonly #timer: unknown;
  readonly #signal: AbortSignal | undefined;
  readonly #onAbort = () => this.#stop('cancelled');

  constructor(
    readonly timeoutSeconds: number,
    signal: AbortSignal | undefined,
    private readonly stop: (why: StopReason) => void,
    timers: Timers = realTimers,
  ) {
    this.#timers = timers;
    this.#signal = signal;
    this.#timer = timers.setTimeout(() => this.#stop('timed-out'), timeoutSeconds * 1000);
    signal?.addEventListener('abort', this.#onAbort, { once: true });
    if (signal?.aborted) this.#onAbort();
  }

  get stoppedBy(): StopReason | null {
    return this.#stoppedBy;
  }

  /** The command has ended: neither limit may fire any more. */
  release(): void {
    this.#timers.clearTimeout(this.#timer);
    this.#signal?.removeEventListener('abort', this.#onAbort);
  }

  /** How a command these limits stopped is reported; null when it ended on its own. */
  result(output: CapturedOutput, durationMs: number): ExecResult | null {
    if (this.#stoppedBy === 'timed-out') {
      const reason = timeoutReason(this.timeoutSeconds);
      return { ...output, exitCode: TIMEOUT_EXIT_CODE, end: 'timed-out', reason, durationMs };
    }
    if (this.#stoppedBy === 'cancelled') {
      return {
        ...output,
        exitCode: CANCELLED_EXIT_CODE,
        end: 'cancelled',
        reason: CANCELLED_REASON,
        durationMs,
      };
    }
    return null;
  }

  #stop(why: StopReason): void {
    if (this.#stoppedBy !== null) return;
    this.#stoppedBy = why;
    this.stop(why);
  }
}

type CapturedOutput = Pick<ExecResult, 'stdout' | 'stderr' | 'output' | 'truncated'>;
