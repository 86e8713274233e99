import { describe, expect, it } from 'vitest';
import { before as checkBefore, forwarding } from '../../src/util/forwarding.js';

interface Counter {
  readonly step: number;
  add(amount: number): Promise<number>;
  total(): number;
}

/** A port with state behind `this` and a private field, as adapters are. */
class RealCounter implements Counter {
  readonly step = 2;
  #total = 0;

  async add(amount: number): Promise<number> {
    this.#total += amount * this.step;
    return this.#total;
  }

  total(): number {
    return this.#total;
  }
}

describe('forwarding', () => {
  it('takes overridden members from the overrides and every other member from the target', async () => {
    const inner = new RealCounter();
    const seen: number[] = [];
    const outer = forwarding<Counter>(inner, {
      add: async (amount) => {
        seen.push(amount);
        return inner.add(amount);
      },
    });
    expect(await outer.add(3)).toBe(6);
    expect(seen).toEqual([3]);
    expect(outer.step).toBe(2);
    expect(outer.total()).toBe(6);
  });

  it('binds forwarded methods to the target, so private state keeps working when a method is passed around', () => {
    const inner = new RealCounter();
    const { total } = forwarding<Counter>(inner, {});
    expect(total()).toBe(0);
  });

  it('forwards a member added to the target after it was wrapped', () => {
    const inner = new RealCounter() as RealCounter & { label?: () => string };
    const outer = forwarding(inner, {});
    inner.label = () => 'added later';
    expect(outer.label?.()).toBe('added later');
  });
});

describe('before', () => {
  it('runs the check before each named method and forwards the call with its arguments', async () => {
    const inner = new RealCounter();
    let checks = 0;
    const guarded = checkBefore(inner, ['add'], () => {
      checks++;
    });
    expect(await guarded.add(5)).toBe(10);
    expect(await guarded.add(1)).toBe(12);
    expect(checks).toBe(2);
  });

  it('turns a failing check into a rejected call and never reaches the target', async () => {
    const inner = new RealCounter();
    const guarded = checkBefore(inner, ['add'], () => {
      throw new Error('the lease was lost');
    });
    const call = guarded.add(5);
    await expect(call).rejects.toThrow('the lease was lost');
    expect(inner.total()).toBe(0);
  });
});
