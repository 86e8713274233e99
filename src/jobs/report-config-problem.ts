import type { CodeHost } from '../code-host/code-host.js';
import { Redactor, renderConfigProblemCheckRun } from '../report/index.js';
import { postWithoutJob, type ReportTarget } from './report-target.js';

/**
 * An invalid `.github/selfdebug.yml`: one comment quoting the problem, or,
 * for a failed run with no pull request to answer in, a check run on the
 * run's commit saying what to fix. Nothing runs, so no job report exists;
 * the text still passes the redactor, with the one secret known this early.
 */
export async function reportConfigProblem(
  target: ReportTarget,
  host: CodeHost,
  message: string,
  apiKey: string | undefined,
): Promise<void> {
  const redactor = new Redactor([apiKey]);
  await postWithoutJob(host, target, {
    comment: redactor.redact(message),
    checkRun: () => renderConfigProblemCheckRun(message, redactor),
  });
}
