import type { LoopEvent } from '../loop/events.js';
import { type JobContext, type JobView, jobView, reduceJobEvent, type TestedCommit } from './job-view.js';

/** The check run a job opened, once it is open: updated as the job goes on, completed at its end. */
export interface OpenCheckRun {
  id: number;
  url: string;
}

/**
 * A job's report as one value: the view every comment and check run is
 * rendered from, the check run it opened, and where its comments go. The
 * reporter holds nothing else; each change is folded in by reduceJobReport.
 */
export interface JobReport {
  view: JobView;
  checkRun: OpenCheckRun | null;
  /** The issue or pull request that gets comments; null until there is one. */
  reportTo: number | null;
}

/** One more thing the report knows: a loop event, or what the job or its writers learned. */
export type ReportChange =
  | { type: 'loop-event'; event: LoopEvent }
  | { type: 'commit-known'; commit: TestedCommit }
  | { type: 'check-run-opened'; checkRun: OpenCheckRun }
  | { type: 'status-posted'; url: string }
  | { type: 'attempt-posted'; attempt: number; url: string }
  | { type: 'moved-to'; issueNumber: number }
  | {
      type: 'delivered';
      pullRequestUrl: string | null;
      deliveryError: string | null;
      fixSha?: string | null;
    };

export function newJobReport(context: JobContext, reportTo: number | null): JobReport {
  return { view: jobView(context, []), checkRun: null, reportTo };
}

/** The reducer: one change more. Returns a new report and leaves the old one untouched. */
export function reduceJobReport(report: JobReport, change: ReportChange): JobReport {
  const { view } = report;
  switch (change.type) {
    case 'loop-event': {
      const events = [...view.events, change.event];
      return { ...report, view: { ...view, ...reduceJobEvent(view, change.event), events } };
    }
    case 'commit-known':
      return { ...report, view: { ...view, commit: change.commit } };
    case 'check-run-opened':
      return { ...report, checkRun: change.checkRun, view: { ...view, checkRunUrl: change.checkRun.url } };
    case 'status-posted':
      return { ...report, view: { ...view, statusCommentUrl: change.url } };
    case 'attempt-posted': {
      const attemptCommentUrls = { ...view.attemptCommentUrls, [change.attempt]: change.url };
      return { ...report, view: { ...view, attemptCommentUrls } };
    }
    case 'moved-to':
      // A job that already speaks somewhere stays there: its comments are not split over two places.
      return report.reportTo === null ? { ...report, reportTo: change.issueNumber } : report;
    case 'delivered': {
      const { pullRequestUrl, deliveryError } = change;
      return { ...report, view: { ...view, pullRequestUrl, deliveryError, fixSha: change.fixSha ?? null } };
    }
  }
}

/**
 * The attempts whose comment is due and not yet posted: every attempt the
 * next one followed, and the last too once the job is over. None while there
 * is nowhere to post, and none with `single` comments.
 */
export function attemptsToPost(report: JobReport): number[] {
  const { view } = report;
  if (report.reportTo === null || view.comments === 'single') return [];
  const done = view.finished ? view.attempts : view.attempts.slice(0, -1);
  return done.map(({ number }) => number).filter((number) => !(number in view.attemptCommentUrls));
}
