import type { CodeHost } from '../code-host/code-host.js';
import type { RepoConfig } from '../config/repo-config.js';
import type { JobRequest } from '../queue/job-request.js';
import { Redactor, redactingLogger } from '../report/index.js';
import type { Logger } from '../util/logger.js';
import type { JobRunnerDependencies } from './job-dependencies.js';
import type { JobReporterOptions } from './job-reporter.js';
import { type JobSettings, jobSettings } from './job-settings.js';
import type { ReportTarget } from './report-target.js';

/** What a job works out once, before its first step: settings, token, redactor, logger and its report's options. */
export interface OpenedJob {
  request: JobRequest;
  host: CodeHost;
  dependencies: JobRunnerDependencies;
  settings: JobSettings;
  /** For git only; it never enters the sandbox. */
  token: string;
  /** Redacting: from here on log lines carry command output and error messages. */
  logger: Logger;
  /** How the job's report is written: where, through which host, redacted by what. */
  reporting: JobReporterOptions;
}

export async function openJob(
  start: Pick<OpenedJob, 'request' | 'host' | 'dependencies'> & { reportTarget: ReportTarget },
  config: RepoConfig,
): Promise<OpenedJob> {
  const { request, host, dependencies, reportTarget } = start;
  const settings = jobSettings(request, config, dependencies);
  const token = await dependencies.tokenFor(request);
  const redactor = new Redactor([token, ...settings.secrets]);
  const logger = redactingLogger(dependencies.logger, redactor);
  const reporting: JobReporterOptions = {
    request,
    host,
    redactor,
    logger,
    reportTo: reportTarget.issueNumber,
    handle: dependencies.appConfig.handle,
    settings: settings.report,
  };
  return { request, host, dependencies, settings, token, logger, reporting };
}
