import type { CodeHost } from '../code-host/code-host.js';
import type { RepoConfig } from '../config/repo-config.js';
import type { FixRan } from '../fix/index.js';
import type { JobRequest } from '../queue/job-request.js';
import type { Redactor } from '../report/index.js';
import type { PreparedTask } from '../triggers/index.js';
import type { Logger } from '../util/logger.js';
import type { CommitAuthor, Workspace } from '../workspace/workspace.js';
import { type DeliveryInput, jobTrailers, pullRequestText } from './delivery-plan.js';
import type { DeliveryPorts } from './execute-delivery.js';
import { fixedScripts } from './fix-files.js';
import type { JobEventSink } from './job-events.js';
import type { JobTarget } from './resolve-target.js';

/** What a job's delivery reads besides the loop's result, planned with the job. */
export interface JobDeliveryInputs {
  request: JobRequest;
  host: CodeHost;
  /** For the push only; it never enters the sandbox. */
  token: string;
  redactor: Redactor;
  logger: Logger;
  target: JobTarget;
  prepared: PreparedTask;
  settings: RepoConfig['pull_request'];
  author: CommitAuthor;
  checkout: Promise<Workspace>;
}

/**
 * Once the loop has run (its sandbox still open): what the delivery
 * decision reads, and the ports the decision is carried out through. The
 * report hears of the pull request before it is opened (its body links to
 * every comment posted) and once the fix went to one.
 */
export async function deliveryOf(
  inputs: JobDeliveryInputs,
  ran: FixRan,
  report: JobEventSink,
): Promise<{ input: DeliveryInput; ports: DeliveryPorts }> {
  const { request, prepared, logger, redactor } = inputs;
  const { loop } = ran;
  const { refused } = ran.copied;
  if (refused.length > 0) {
    const paths = refused.map((entry) => `${entry.path} (${entry.reason})`).join('; ');
    logger.warn({ job: request.id, refused: paths }, 'files of the fix could not be copied back');
  }
  const scripts = prepared.scripts.length > 0 ? await fixedScripts(ran.files, loop.changedFiles) : null;
  const input: DeliveryInput = {
    loop,
    fixes: prepared.task.command,
    trailers: jobTrailers(request),
    scripts,
    refused,
    partialFix: 'withhold',
    target: inputs.target,
    settings: inputs.settings,
    author: inputs.author,
    redactor,
  };
  const ports: DeliveryPorts = {
    host: inputs.host,
    workspace: await inputs.checkout,
    token: inputs.token,
    pullRequestText: async (pull) =>
      pullRequestText(pull, await report({ type: 'pull-request-due' }), redactor),
    movedTo: async (issueNumber) => {
      await report({ type: 'moved-to', issueNumber });
    },
    logger,
    redactor,
    jobId: request.id,
  };
  return { input, ports };
}
