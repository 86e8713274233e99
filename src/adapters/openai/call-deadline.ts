import type { Timers } from '../../util/timers.js';

/** Why a call was cut off by us rather than by the caller or the server. */
export type DeadlineKind = 'idle' | 'total';

/** A call we stopped: idle (the server went quiet) or over its total cap. */
export class CallDeadlineError extends Error {
  override readonly name = 'CallDeadlineError';
  constructor(
    readonly kind: DeadlineKind,
    readonly seconds: number,
  ) {
    super(
      kind === 'idle'
        ? `no data from the model server for ${seconds} s`
        : `the model call took longer than ${seconds} s`,
    );
  }
}

/**
 * One HTTP try's limits: `touch()` on every byte re-arms the idle timer, so a
 * slow model still producing tokens runs as long as the total cap allows. The
 * signal aborts on either limit or when the caller's signal aborts.
 */
export class CallDeadline {
  readonly #controller = new AbortController();
  readonly #timers: Timers;
  readonly #idleMilliseconds: number;
  readonly #parent: AbortSignal | undefined;
  readonly #onParentAbort = () => this.#controller.abort(this.#parent?.reason);
  #idleHandle: unknown;
  #totalHandle: unknown;
  #expired: CallDeadlineError | undefined;

  constructor(options: {
    idleSeconds: number;
    totalSeconds: number;
    timers: Timers;
    parent?: AbortSignal | undefined;
  }) {
    this.#timers = options.timers;
    this.#idleMilliseconds = Math.max(1, Math.round(options.idleSeconds * 1000));
    this.#parent = options.parent;
    if (options.parent?.aborted) this.#controller.abort(options.parent.reason);
    options.parent?.addEventListener('abort', this.#onParentAbort, { once: true });
    this.#totalHandle = this.#timers.setTimeout(
      () => this.#expire(new CallDeadlineError('total', options.totalSeconds)),
      Math.max(1, Math.round(options.totalSeconds * 1000)),
    );
    this.#armIdle(options.idleSeconds);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The limit that stopped the call, if one did (undefined when the caller aborted). */
  get expired(): CallDeadlineError | undefined {
    return this.#expired;
  }

  /** Something arrived: the server is alive. */
  touch(): void {
    if (this.#controller.signal.aborted) return;
    this.#timers.clearTimeout(this.#idleHandle);
    this.#armIdle(this.#idleMilliseconds / 1000);
  }

  dispose(): void {
    this.#timers.clearTimeout(this.#idleHandle);
    this.#timers.clearTimeout(this.#totalHandle);
    this.#parent?.removeEventListener('abort', this.#onParentAbort);
  }

  #armIdle(seconds: number): void {
    this.#idleHandle = this.#timers.setTimeout(
      () => this.#expire(new CallDeadlineError('idle', seconds)),
      this.#idleMilliseconds,
    );
  }

  #expire(error: CallDeadlineError): void {
    if (this.#controller.signal.aborted) return;
    this.#expired = error;
    this.#controller.abort(error);
  }
}
