import type { CiVerdict } from '../ci-verdict/ci-verdict.js';
import type { CiHost } from '../code-host/code-host.js';
import type { JobRecord } from '../queue/job-store.js';
import type { Redactor } from '../report/index.js';
import { ciVerdictCheckRun, ciVerdictSection, withCiVerdictSection } from '../report/index.js';
import type { LoggedWrite } from './logged-write.js';

/** The check run's name on the fix's commit, beside the job's own `selfdebug` check run. */
export const CI_VERDICT_CHECK = 'selfdebug: your CI';

export interface CiVerdictWrite {
  /** The job that pushed the commit. */
  record: JobRecord;
  verdict: CiVerdict;
  /** Every verdict of the pull request's rounds, oldest first, this one included. */
  rounds: readonly CiVerdict[];
  redactor: Redactor;
  write: LoggedWrite;
}

/**
 * Writes a recorded verdict where people look: a check run on the fix's
 * commit, the pull request body's CI section (every round's verdict), and
 * the job's status comment. Each write may fail alone; it is logged.
 */
export async function writeCiVerdict(host: CiHost, plan: CiVerdictWrite): Promise<void> {
  const { record, verdict, redactor, write } = plan;
  await write('write the CI verdict check run', () =>
    host.createCheckRun({
      name: CI_VERDICT_CHECK,
      headSha: verdict.sha,
      status: 'completed',
      ...ciVerdictCheckRun(verdict, redactor),
    }),
  );
  const pullNumber = numberIn(record.links.pullRequest, /\/pull\/(\d+)(?:$|[/?#])/);
  if (pullNumber !== null) {
    const section = ciVerdictSection(plan.rounds, redactor);
    await write('write the CI verdict in the pull request', () =>
      host.amendPullRequestBody(pullNumber, (body) => withCiVerdictSection(body, section)),
    );
  }
  const commentId = numberIn(record.links.statusComment, /#issuecomment-(\d+)$/);
  if (commentId !== null) {
    const section = ciVerdictSection([verdict], redactor);
    await write('write the CI verdict in the status comment', () =>
      host.amendComment(commentId, (body) => withCiVerdictSection(body, section)),
    );
  }
}

function numberIn(url: string | null, pattern: RegExp): number | null {
  const found = url === null ? null : pattern.exec(url);
  return found ? Number(found[1]) : null;
}
