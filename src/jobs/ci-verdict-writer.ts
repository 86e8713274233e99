import type { CiVerdict } from '../ci-verdict/ci-verdict.js';
import type { CiHost } from '../code-host/code-host.js';
import type { Redactor } from '../report/index.js';
import { ciVerdictCheckRun, ciVerdictSection, withCiVerdictSection } from '../report/index.js';
import type { LoggedWrite } from './logged-write.js';

/** The check run's name on the fix's commit, beside the job's own `selfdebug` check run. */
export const CI_VERDICT_CHECK = 'selfdebug: your CI';

export interface CiVerdictWrite {
  /** The pull request whose body gets the CI section, if any. */
  pullNumber: number | null;
  /** The status comment that gets this verdict's section, if any (the Action has none). */
  commentId: number | null;
  verdict: CiVerdict;
  /** Every verdict of the pull request's rounds, oldest first, this one included. */
  rounds: readonly CiVerdict[];
  redactor: Redactor;
  write: LoggedWrite;
}

/**
 * Writes a decided verdict where people look: the pull request body's CI
 * section (every round's verdict), a check run on the fix's commit, and the
 * job's status comment. Each write may fail alone; it is logged. A body that
 * already holds this very section was written by an earlier writer (the
 * Action runs again for each workflow that finishes): nothing is written twice.
 */
export async function writeCiVerdict(host: CiHost, plan: CiVerdictWrite): Promise<void> {
  const { verdict, redactor, write, pullNumber, commentId } = plan;
  if (pullNumber !== null) {
    const section = ciVerdictSection(plan.rounds, redactor);
    let repeated = false;
    await write('write the CI verdict in the pull request', () =>
      host.amendPullRequestBody(pullNumber, (body) => {
        const amended = withCiVerdictSection(body, section);
        repeated = amended === body;
        return amended;
      }),
    );
    if (repeated) return;
  }
  await write('write the CI verdict check run', () =>
    host.createCheckRun({
      name: CI_VERDICT_CHECK,
      headSha: verdict.sha,
      status: 'completed',
      ...ciVerdictCheckRun(verdict, redactor),
    }),
  );
  if (commentId !== null) {
    const section = ciVerdictSection([verdict], redactor);
    await write('write the CI verdict in the status comment', () =>
      host.amendComment(commentId, (body) => withCiVerdictSection(body, section)),
    );
  }
}
