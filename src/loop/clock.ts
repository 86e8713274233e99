/**
 * The loop's port to time: a monotonic reading in milliseconds. Injected so a
 * test decides how much time passes (the time budget, reported durations)
 * instead of depending on how fast the machine is.
 */
export interface Clock {
  now(): number;
}

export const realClock: Clock = { now: () => performance.now() };
