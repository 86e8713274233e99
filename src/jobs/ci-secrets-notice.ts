import { workflowsReadingSecrets } from '../ci-logs/index.js';
import type { JobRequest } from '../queue/job-request.js';
import { type Redactor, renderCiSecretsWarning } from '../report/index.js';
import type { Logger } from '../util/logger.js';
import { OWN_BRANCH_EXAMPLES } from '../workspace/selfdebug-branches.js';
import { readCheckoutWorkflows } from '../workspace/workflow-files.js';

export interface CiSecretsCheck {
  request: JobRequest;
  /** Whether the job store holds no earlier job of the repository; unset: never warn. */
  firstJobOn: ((repository: string) => Promise<boolean>) | undefined;
  redactor: Redactor;
  logger: Logger;
}

/**
 * The first job on a repository (no finished job of it in the store's
 * history) reads the checkout's workflows and, when some would run the
 * App's fixes with secrets, returns the warning its check run carries
 * (docs/ci-secrets.md). Read before anything in the checkout changes; a
 * problem reading them is logged, never a failed job.
 */
export async function ciSecretsNotice(check: CiSecretsCheck, checkoutDir: string): Promise<string | null> {
  const { request, logger } = check;
  const repository = `${request.repository.owner}/${request.repository.name}`;
  try {
    if (!(await check.firstJobOn?.(repository))) return null;
    const found = workflowsReadingSecrets(await readCheckoutWorkflows(checkoutDir), {
      branches: OWN_BRANCH_EXAMPLES,
      baseBranch: request.repository.defaultBranch,
    });
    if (found.length > 0) {
      logger.warn(
        { job: request.id, workflows: found.map((entry) => entry.path) },
        'CI would run fixes with secrets',
      );
    }
    return renderCiSecretsWarning(found, check.redactor);
  } catch (error) {
    logger.warn({ job: request.id, error: String(error) }, 'the workflows could not be checked for secrets');
    return null;
  }
}
