import { expect } from 'vitest';

/** The error a call failed with, so a test can check its class and its fields together. */
export async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('the call should have failed'),
    (error: unknown) => error,
  );
}
