import { EventEmitter } from 'node:events';

/** A request the setup proxy refused, as the proxy tells it. */
export interface EgressRefusal {
  /** host:port */
  target: string;
  reason: string;
  /** What to change so the proxy lets it through. */
  advice: string;
}

/** How runSetup hears of the proxy's refusals while a step runs. */
export interface RefusalSource {
  /** Stop a step once the proxy has refused the same target this many times. */
  limit: number;
  /** Calls `listener` on each refusal until the returned function is called. */
  subscribe(listener: (refusal: EgressRefusal) => void): () => void;
}

/**
 * Counts one step's refusals by target and aborts the step once a target
 * reaches the limit: an installer retries a refused registry for many
 * minutes (npm backs off per package), and each retry is refused the same
 * way, so waiting teaches nothing.
 */
export class RefusalWatch {
  private readonly counts = new Map<string, number>();
  private readonly controller = new AbortController();
  tripped: (EgressRefusal & { count: number }) | null = null;

  constructor(private readonly limit: number) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  refused(refusal: EgressRefusal): void {
    if (this.tripped) return;
    const count = (this.counts.get(refusal.target) ?? 0) + 1;
    this.counts.set(refusal.target, count);
    if (count < this.limit) return;
    this.tripped = { ...refusal, count };
    this.controller.abort(new Error(`the setup proxy refused ${refusal.target} ${count} times`));
  }
}

/** A source the proxy's refusal callback feeds, handed on to whichever setup step listens while it runs. */
export function refusalSource(limit: number): {
  source: RefusalSource;
  emit: (refusal: EgressRefusal) => void;
} {
  const events = new EventEmitter<{ refused: [EgressRefusal] }>();
  return {
    emit: (refusal) => events.emit('refused', refusal),
    source: {
      limit,
      subscribe: (listener) => {
        events.on('refused', listener);
        return () => events.off('refused', listener);
      },
    },
  };
}
