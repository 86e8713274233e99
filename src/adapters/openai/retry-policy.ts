import { setTimeout as delay } from 'node:timers/promises';
import { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import { ModelApiError } from '../../errors/index.js';
import { CallDeadlineError } from './call-deadline.js';

/** Waits between retries; injected so tests record the waits instead of sitting through them. */
export type Sleep = (milliseconds: number, signal?: AbortSignal) => Promise<void>;

export const defaultSleep: Sleep = (milliseconds, signal) =>
  delay(milliseconds, undefined, signal === undefined ? undefined : { signal });

/** A server asking for more than this is treated as asking for this; the job has its own deadline. */
const MAX_RETRY_DELAY_MILLISECONDS = 60_000;
const INITIAL_BACKOFF_MILLISECONDS = 500;
const MAX_BACKOFF_MILLISECONDS = 8_000;

/** Transient failures: another try may well succeed. */
export function isRetryable(error: unknown): boolean {
  // A stalled server may well answer a fresh request; a call over its total cap would only hit it again.
  if (error instanceof CallDeadlineError) return error.kind === 'idle';
  if (error instanceof ModelApiError) return error.retryable;
  if (error instanceof APIUserAbortError) return false;
  // Covers APIConnectionTimeoutError too; both have no status.
  if (error instanceof APIConnectionError) return true;
  if (!(error instanceof APIError) || error.status === undefined) return false;
  // OpenAI says so explicitly for some answers (e.g. an exhausted quota).
  const serverAdvice = error.headers?.get('x-should-retry');
  if (serverAdvice === 'true') return true;
  if (serverAdvice === 'false') return false;
  if (error.code === 'insufficient_quota') return false;
  const status = error.status;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * How long to wait before retry number `retryIndex` (0 for the first): what the
 * server asked for in retry-after-ms / retry-after, else exponential backoff with
 * up to 25 % jitter so many workers do not retry in lockstep.
 */
export function retryDelayMilliseconds(error: unknown, retryIndex: number, random: () => number): number {
  const requested = requestedDelay(error);
  if (requested !== undefined) return Math.min(Math.max(requested, 0), MAX_RETRY_DELAY_MILLISECONDS);
  const backoff = Math.min(INITIAL_BACKOFF_MILLISECONDS * 2 ** retryIndex, MAX_BACKOFF_MILLISECONDS);
  return Math.round(backoff * (1 - random() * 0.25));
}

function requestedDelay(error: unknown): number | undefined {
  if (!(error instanceof APIError) || error.headers === undefined) return undefined;
  const milliseconds = parseNumber(error.headers.get('retry-after-ms'));
  if (milliseconds !== undefined) return milliseconds;
  const retryAfter = error.headers.get('retry-after');
  if (retryAfter === null) return undefined;
  const seconds = parseNumber(retryAfter);
  if (seconds !== undefined) return seconds * 1000;
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : date - Date.now();
}

function parseNumber(text: string | null): number | undefined {
  if (text === null || !/^\s*\d+(\.\d+)?\s*$/.test(text)) return undefined;
  return Number(text);
}
