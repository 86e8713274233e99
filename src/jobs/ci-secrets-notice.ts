import { workflowsReadingSecrets } from '../ci-logs/index.js';
import type { JobRequest } from '../queue/job-request.js';
import type { JobStore } from '../queue/job-store.js';
import { type Redactor, renderCiSecretsWarning } from '../report/index.js';
import type { Logger } from '../util/logger.js';
import { OWN_BRANCH_EXAMPLES } from '../workspace/selfdebug-branches.js';
import { readCheckoutWorkflows } from '../workspace/workflow-files.js';

export interface CiSecretsCheck {
  request: JobRequest;
  /** Whether no job of the repository has shown the warning yet (ciSecretsDue); unset: never warn. */
  ciSecretsDue: ((repository: string) => Promise<boolean>) | undefined;
  redactor: Redactor;
  logger: Logger;
}

/** What a job learnt of the CI secrets warning: the warning its check run carries, and whether it is settled. */
export interface CiSecretsNotice {
  /** The warning, when the workflows were read and some would run the App's fixes with secrets. */
  warning: string | null;
  /**
   * True once the job has done what the warning asks of it (read the
   * workflows, or found an earlier job did); false when it could not read
   * them, so a later job of the repository tries again.
   */
  settled: boolean;
}

/** A job that never read its checkout (refused or failed before): the warning is still due. */
export const CI_SECRETS_UNSETTLED: CiSecretsNotice = { warning: null, settled: false };

/** How far back a repository's history is searched for a job that showed the warning. */
const HISTORY_REACH = 200;

/**
 * The store's answer to "is the warning still due on this repository?": no
 * finished job of it has shown it (or found nothing to warn of). A job that
 * was refused or failed before it read its checkout leaves it due, so the
 * next job shows it however the first ended.
 */
export function ciSecretsDue(store: Pick<JobStore, 'history'>): (repository: string) => Promise<boolean> {
  return async (repository) =>
    !(await store.history({ repository, limit: HISTORY_REACH })).some((record) => record.ciSecretsShown);
}

/**
 * While the warning is due on a repository (docs/ci-secrets.md), reads the
 * checkout's workflows and, when some would run the App's fixes with
 * secrets, returns the warning its check run carries. Read before anything
 * in the checkout changes; a problem reading them is logged, never a failed
 * job, and leaves the warning due.
 */
export async function ciSecretsNotice(check: CiSecretsCheck, checkoutDir: string): Promise<CiSecretsNotice> {
  const { request, logger } = check;
  const repository = `${request.repository.owner}/${request.repository.name}`;
  try {
    if (check.ciSecretsDue === undefined) return CI_SECRETS_UNSETTLED;
    if (!(await check.ciSecretsDue(repository))) return { warning: null, settled: true };
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
    return { warning: renderCiSecretsWarning(found, check.redactor), settled: true };
  } catch (error) {
    logger.warn({ job: request.id, error: String(error) }, 'the workflows could not be checked for secrets');
    return CI_SECRETS_UNSETTLED;
  }
}
