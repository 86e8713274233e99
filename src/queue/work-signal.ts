/**
 * Wakes workers of this process when a job may have become claimable (an
 * enqueue, a finished job that unblocks its branch, a hand-back), so they
 * need not poll for work that arrived here. Other processes are found by
 * polling, or by the adapter's own blocking fetch.
 */
export class WorkSignal {
  private waiters = new Set<() => void>();

  notify(): void {
    const waiting = [...this.waiters];
    this.waiters.clear();
    for (const wake of waiting) wake();
  }

  wait(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
