/**
 * The port to timers: whatever limits, paces or times out work takes its
 * timers from here, injected, so a test decides when time passes instead of
 * waiting for it (test/helpers/manual-timers.ts).
 */
export interface Timers {
  setTimeout(callback: () => void, milliseconds: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (callback, milliseconds) => {
    const handle = setTimeout(callback, milliseconds);
    // A pending limit must not keep the process alive after the work is done.
    handle.unref?.();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
