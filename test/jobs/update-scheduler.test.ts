import { describe, expect, it } from 'vitest';
import { UpdateScheduler } from '../../src/jobs/update-scheduler.js';
import { ManualTimers } from '../helpers/manual-timers.js';

const INTERVAL = 3000;

/** Writes that finish when the test says so, so "in flight" is a state the test holds. */
class Writes {
  started = 0;
  finished = 0;
  readonly #open: Array<() => void> = [];

  readonly write = (): Promise<void> => {
    this.started++;
    return new Promise((resolve) =>
      this.#open.push(() => {
        this.finished++;
        resolve();
      }),
    );
  };

  /** Finishes the oldest write in flight and lets its continuations run. */
  async finishOne(): Promise<void> {
    this.#open.shift()?.();
    await flush();
  }
}

async function flush(): Promise<void> {
  for (let turn = 0; turn < 5; turn++) await Promise.resolve();
}

function scheduler() {
  const timers = new ManualTimers();
  const writes = new Writes();
  const updates = new UpdateScheduler(writes.write, INTERVAL, { clock: { now: () => timers.now }, timers });
  return { timers, writes, updates };
}

describe('UpdateScheduler', () => {
  it('writes at once when nothing was written yet', () => {
    const { writes, updates } = scheduler();
    updates.soon(false);
    expect(writes.started).toBe(1);
  });

  it('holds a quiet update until the interval after the last write has passed', async () => {
    const { timers, writes, updates } = scheduler();
    updates.soon(false);
    await writes.finishOne();
    timers.advance(1000);
    updates.soon(false);
    updates.soon(false);
    expect(writes.started).toBe(1);
    expect(timers.armed).toBe(1);
    timers.advance(INTERVAL - 1);
    expect(writes.started).toBe(1);
    timers.advance(1);
    expect(writes.started).toBe(2);
  });

  it('writes an urgent update at once, inside the interval', async () => {
    const { timers, writes, updates } = scheduler();
    updates.soon(false);
    await writes.finishOne();
    timers.advance(10);
    updates.soon(true);
    expect(writes.started).toBe(2);
  });

  it('folds every request made during a write into one more write after it', async () => {
    const { writes, updates } = scheduler();
    updates.soon(true);
    updates.soon(true);
    updates.soon(true);
    updates.soon(true);
    expect(writes.started).toBe(1);
    await writes.finishOne();
    expect(writes.started).toBe(2);
    await writes.finishOne();
    expect(writes.started).toBe(2);
    expect(writes.finished).toBe(2);
  });

  it('counts the first write as an update and queues later ones behind it', async () => {
    const { timers, writes, updates } = scheduler();
    const opened: string[] = [];
    updates.start(async () => {
      opened.push('status comment');
      await writes.write();
    });
    updates.soon(true);
    expect(opened).toEqual(['status comment']);
    expect(writes.started).toBe(1);
    await writes.finishOne();
    expect(writes.started).toBe(2);
    await writes.finishOne();
    // The interval runs from the later write: a quiet update now waits for it.
    updates.soon(false);
    expect(timers.armed).toBe(1);
  });

  it('idle() drops the scheduled update and resolves once the write in flight is done', async () => {
    const { timers, writes, updates } = scheduler();
    updates.soon(false);
    updates.soon(false);
    expect(timers.armed).toBe(1);
    let idle = false;
    const waiting = updates.idle().then(() => {
      idle = true;
    });
    await flush();
    expect(idle).toBe(false);
    await writes.finishOne();
    await waiting;
    expect(idle).toBe(true);
    timers.advance(INTERVAL);
    expect(writes.started).toBe(1);
  });
});
