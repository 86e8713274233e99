import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The one polling wait of the tests: until `check` holds. Tests wait for a
 * condition, never for a guessed time, and the bound is generous on purpose
 * (two minutes unless a test says otherwise): on a loaded two-core machine a
 * worker process can take half a minute to start, and a slow machine must
 * make a test slower, not failed. `context` adds what helps on a failure
 * (a process's last log lines).
 */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  options: { timeoutMs?: number; intervalMs?: number; context?: () => string } = {},
): Promise<void> {
  const { timeoutMs = 120_000, intervalMs = 20, context } = options;
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      const more = context ? `\n${context()}` : '';
      throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}${more}`);
    }
    await sleep(intervalMs);
  }
}
