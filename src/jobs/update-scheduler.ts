import type { Clock } from '../loop/clock.js';
import { realTimers, type Timers } from '../util/timers.js';

/** Where the scheduler reads the time and sets its timer; injected so a test moves time itself. */
export interface SchedulerTime {
  clock: Clock;
  timers: Timers;
}

const realTime: SchedulerTime = { clock: { now: () => Date.now() }, timers: realTimers };

/**
 * Paces a job's updates to GitHub: one write in flight at a time, updates
 * asked for meanwhile folded into one more after it, and quiet events held
 * back until `intervalMs` after the last update (GitHub's secondary rate
 * limits; Octokit spaces writes out anyway, and a job should not wait for it).
 */
export class UpdateScheduler {
  private lastUpdate = Number.NEGATIVE_INFINITY;
  private pending: unknown = null;
  /** The write being posted; requests meanwhile set `again` and are folded into one more. */
  private running: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly update: () => Promise<void>,
    private readonly intervalMs: number,
    private readonly time: SchedulerTime = realTime,
  ) {}

  /** Runs `work` as the first write (it counts as an update); later updates queue behind it. */
  start(work: () => Promise<void>): void {
    this.inBackground(work);
  }

  /** An update now when `urgent` or when the last one is old enough; otherwise one at the end of the interval. */
  soon(urgent: boolean): void {
    if (urgent || this.time.clock.now() - this.lastUpdate >= this.intervalMs) this.request();
    else this.schedule();
  }

  /** Resolves once no write is in flight, dropping a scheduled update: the caller writes next. */
  async idle(): Promise<void> {
    this.cancelScheduled();
    while (this.running) await this.running;
  }

  /** Starts an update now, or marks one due after the write in flight. */
  private request(): void {
    this.cancelScheduled();
    if (this.running) {
      this.again = true;
      return;
    }
    this.again = false;
    this.inBackground(this.update);
  }

  private inBackground(work: () => Promise<void>): void {
    this.lastUpdate = this.time.clock.now();
    this.running = work().finally(() => {
      this.running = null;
      if (this.again) this.request();
    });
  }

  private schedule(): void {
    if (this.pending !== null) return;
    this.pending = this.time.timers.setTimeout(() => {
      this.pending = null;
      this.request();
    }, this.intervalMs);
  }

  private cancelScheduled(): void {
    if (this.pending !== null) this.time.timers.clearTimeout(this.pending);
    this.pending = null;
  }
}
