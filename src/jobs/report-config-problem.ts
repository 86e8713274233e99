import type { CodeHost } from '../code-host/code-host.js';
import { issueNumberOf, type JobRequest } from '../queue/job-request.js';
import { Redactor, renderConfigProblemCheckRun } from '../report/index.js';

/**
 * An invalid `.github/selfdebug.yml`: one comment quoting the problem, or,
 * for a failed run with no pull request to answer in, a check run on the
 * run's commit saying what to fix. Nothing runs, so no job report exists;
 * the text still passes the redactor, with the one secret known this early.
 */
export async function reportConfigProblem(
  request: JobRequest,
  host: CodeHost,
  message: string,
  apiKey: string | undefined,
): Promise<void> {
  const redactor = new Redactor([apiKey]);
  const reportTo = issueNumberOf(request);
  if (reportTo !== null) await host.createComment(reportTo, redactor.redact(message));
  else if (request.headSha !== null) {
    const { conclusion, output } = renderConfigProblemCheckRun(message, redactor);
    await host.createCheckRun({
      name: 'selfdebug',
      headSha: request.headSha,
      status: 'completed',
      conclusion,
      output,
    });
  }
}
