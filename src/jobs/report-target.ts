import type { CheckConclusion, CheckOutput, CodeHost } from '../code-host/code-host.js';
import { issueNumberOf, type JobRequest } from '../queue/job-request.js';

/**
 * Where a job speaks, worked out once from its request and passed on: the
 * issue or pull request it answers, and the commit a check run goes on when
 * there is no conversation (a failed run's; null until a job resolves it).
 */
export interface ReportTarget {
  issueNumber: number | null;
  headSha: string | null;
}

export function reportTargetOf(request: JobRequest): ReportTarget {
  return { issueNumber: issueNumberOf(request), headSha: request.headSha };
}

/** How a closing message reaches people: a comment, else a check run on the commit, else not at all. */
export type ReportChannel =
  | { kind: 'comment'; issueNumber: number }
  | { kind: 'check-run'; headSha: string }
  | { kind: 'none' };

/**
 * The one place that chooses between a comment and a check run: people who
 * asked in a conversation read the answer there; a failed run with no pull
 * request has only its commit's checks.
 */
export function reportChannel(target: ReportTarget): ReportChannel {
  if (target.issueNumber !== null) return { kind: 'comment', issueNumber: target.issueNumber };
  if (target.headSha) return { kind: 'check-run', headSha: target.headSha };
  return { kind: 'none' };
}

/** A completed check run's verdict and text, rendered only when the channel is a check run. */
export type CheckRunVerdict = () => { conclusion: CheckConclusion; output: CheckOutput };

/** Posts the one message of a job that does not run (nothing else is posted for it), where reportChannel says. */
export async function postWithoutJob(
  host: CodeHost,
  target: ReportTarget,
  message: { comment: string; checkRun: CheckRunVerdict },
): Promise<void> {
  const channel = reportChannel(target);
  if (channel.kind === 'comment') await host.createComment(channel.issueNumber, message.comment);
  else if (channel.kind === 'check-run')
    await host.createCheckRun({
      name: 'selfdebug',
      headSha: channel.headSha,
      status: 'completed',
      ...message.checkRun(),
    });
}
