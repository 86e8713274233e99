import { TITLE_LENGTH } from './pull-request.js';
import type { Redactor } from './redact.js';

/**
 * The fix's commit message: the prefix and the first line of the model's
 * summary, then the trailers. Redacted as a whole after it is built, since a
 * commit is pushed where anyone with read access sees it and cannot be edited.
 */
export function renderCommitMessage(
  summary: string,
  trailers: readonly string[],
  redactor: Redactor,
  prefix: string,
): string {
  const subject = (redactor.redact(summary).split('\n')[0] ?? '').slice(0, TITLE_LENGTH);
  return redactor.redact(`${prefix}${subject}\n\n${trailers.join('\n')}`);
}
