/**
 * Handlers that were acknowledged to GitHub and are still working. The
 * webhook answer does not wait for them (see docs/app.md, "Acknowledge
 * first"); shutdown and tests wait here instead.
 */
export class InFlight {
  private readonly running = new Set<Promise<void>>();
  private failed: unknown[] = [];

  /** Starts `work` without waiting; a failure is kept for `takeFailures` after `onError` saw it. */
  start(work: () => Promise<void>, onError: (error: unknown) => void): void {
    // One turn of the event loop first, so Probot writes the answer before the handler spends any CPU.
    const tracked: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(work)
      .catch((error: unknown) => {
        this.failed.push(error);
        onError(error);
      })
      .finally(() => this.running.delete(tracked));
    this.running.add(tracked);
  }

  get size(): number {
    return this.running.size;
  }

  /** Resolves once nothing is running, including handlers started while waiting. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** The errors of handlers that failed since the last call. */
  takeFailures(): unknown[] {
    const failures = this.failed;
    this.failed = [];
    return failures;
  }
}
