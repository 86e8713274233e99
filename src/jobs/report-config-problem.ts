import type { CodeHost } from '../code-host/code-host.js';
import { Redactor, renderConfigProblemCheckRun } from '../report/index.js';
import type { JobRunnerDependencies } from './job-dependencies.js';
import type { RunJobResult } from './job-ending.js';
import { postWithoutJob, type ReportTarget } from './report-target.js';

/**
 * An invalid `.github/selfdebug.yml`: one comment quoting the problem, or,
 * for a failed run with no pull request to answer in, a check run on the
 * run's commit saying what to fix. Nothing runs, so no job report exists;
 * the text still passes the redactor, with the one secret known this early.
 */
export async function reportConfigProblem(
  problem: { jobId: string; reportTarget: ReportTarget; message: string },
  host: CodeHost,
  dependencies: Pick<JobRunnerDependencies, 'modelConfig' | 'logger'>,
): Promise<RunJobResult> {
  const { message } = problem;
  const redactor = new Redactor([dependencies.modelConfig.apiKey]);
  await postWithoutJob(host, problem.reportTarget, {
    comment: redactor.redact(message),
    checkRun: () => renderConfigProblemCheckRun(message, redactor),
  });
  dependencies.logger.warn({ job: problem.jobId }, 'job skipped: invalid .github/selfdebug.yml');
  return { view: null, problem: { kind: 'refused', message } };
}
