import type { Timers } from '../../src/util/timers.js';

/**
 * Time under the test's control: nothing fires until `advance` says time has
 * passed, so these tests neither sleep nor depend on how fast this machine is.
 */
export class ManualTimers implements Timers {
  now = 0;
  /** How often a timer was (re)armed: each byte the adapter reads re-arms the idle timer. */
  armed = 0;
  fired: number[] = [];
  readonly #pending = new Map<number, { at: number; callback: () => void; milliseconds: number }>();
  #next = 1;

  setTimeout(callback: () => void, milliseconds: number): unknown {
    const id = this.#next++;
    this.#pending.set(id, { at: this.now + milliseconds, callback, milliseconds });
    this.armed++;
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#pending.delete(handle as number);
  }

  advance(milliseconds: number): void {
    this.now += milliseconds;
    const due = [...this.#pending.entries()]
      .filter(([, timer]) => timer.at <= this.now)
      .sort(([, a], [, b]) => a.at - b.at);
    for (const [id, timer] of due) {
      this.#pending.delete(id);
      this.fired.push(timer.milliseconds);
      timer.callback();
    }
  }
}
