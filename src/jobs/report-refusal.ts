import type { CodeHost } from '../code-host/code-host.js';
import { Redactor } from '../report/index.js';
import { postWithoutJob, type ReportTarget } from './report-target.js';

/**
 * Tells the people who asked why a job will not run (the cost ceiling): a
 * comment on the issue or pull request, or, for a failed run with no
 * conversation, a skipped check run on its commit. Used by the App before
 * it enqueues and by the worker when it claims; nothing else runs.
 */
export async function reportRefusal(
  target: ReportTarget,
  host: CodeHost,
  refusal: { title: string; message: string },
): Promise<void> {
  // Nothing of a job's own is known yet; the redactor still removes any credential-shaped text.
  const message = Redactor.none.redact(refusal.message);
  await postWithoutJob(host, target, {
    comment: message,
    checkRun: () => ({ conclusion: 'skipped', output: { title: refusal.title, summary: message } }),
  });
}

export const CEILING_TITLE = 'Skipped: this installation reached its cost ceiling';
