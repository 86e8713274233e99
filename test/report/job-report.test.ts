import { describe, expect, it } from 'vitest';
import {
  attemptsToPost,
  type JobReport,
  newJobReport,
  type ReportChange,
  reduceJobReport,
} from '../../src/report/job-report.js';
import { jobView } from '../../src/report/job-view.js';
import { fixedRun } from './fixtures/attempts.js';
import {
  attemptUrl,
  CHECK_RUN_URL,
  COMMIT_URL,
  context,
  HEAD_SHA,
  PULL_REQUEST_URL,
  STATUS_URL,
} from './fixtures/job-context.js';

const bare = () =>
  context({
    statusCommentUrl: undefined,
    checkRunUrl: undefined,
    commit: undefined,
    comments: 'per-attempt',
  });

function fold(report: JobReport, changes: readonly ReportChange[]): JobReport {
  return changes.reduce(reduceJobReport, report);
}

const eventsOf = (count?: number): ReportChange[] =>
  fixedRun()
    .events.slice(0, count)
    .map((event) => ({ type: 'loop-event', event }));

describe('reduceJobReport', () => {
  it('folds events and what was posted into the view jobView builds from the same facts', () => {
    const report = fold(newJobReport(bare(), 12), [
      { type: 'commit-known', commit: { sha: HEAD_SHA, url: COMMIT_URL } },
      { type: 'check-run-opened', checkRun: { id: 5001, url: CHECK_RUN_URL } },
      { type: 'status-posted', url: STATUS_URL },
      ...eventsOf(),
      { type: 'attempt-posted', attempt: 1, url: attemptUrl(1) },
      { type: 'attempt-posted', attempt: 2, url: attemptUrl(2) },
      { type: 'delivered', pullRequestUrl: PULL_REQUEST_URL, deliveryError: null },
    ]);

    const expected = jobView(
      context({
        comments: 'per-attempt',
        attemptCommentUrls: { 1: attemptUrl(1), 2: attemptUrl(2) },
        pullRequestUrl: PULL_REQUEST_URL,
      }),
      fixedRun().events,
    );
    expect(report.view).toEqual(expected);
    expect(report.checkRun).toEqual({ id: 5001, url: CHECK_RUN_URL });
    expect(report.reportTo).toBe(12);
  });

  it('leaves the report it was given untouched', () => {
    const before = fold(newJobReport(bare(), 12), eventsOf(5));
    const snapshot = structuredClone(before);
    fold(before, [...eventsOf().slice(5), { type: 'status-posted', url: STATUS_URL }]);
    expect(before).toEqual(snapshot);
  });

  it('keeps the first place a job reports to', () => {
    const moved = fold(newJobReport(bare(), null), [{ type: 'moved-to', issueNumber: 13 }]);
    expect(moved.reportTo).toBe(13);
    expect(reduceJobReport(moved, { type: 'moved-to', issueNumber: 14 }).reportTo).toBe(13);
  });
});

describe('attemptsToPost', () => {
  /** fixedRun's events up to the second attempt's start. */
  const secondUnderWay = () => {
    const events = fixedRun().events;
    const second = events.findIndex((event) => event.type === 'attempt-started' && event.attempt === 2);
    return eventsOf(second + 1);
  };

  it('names the attempts the next one followed, then the last once the job is over', () => {
    const underWay = fold(newJobReport(bare(), 12), secondUnderWay());
    expect(attemptsToPost(underWay)).toEqual([1]);
    const posted = reduceJobReport(underWay, { type: 'attempt-posted', attempt: 1, url: attemptUrl(1) });
    expect(attemptsToPost(posted)).toEqual([]);
    const over = fold(posted, eventsOf().slice(secondUnderWay().length));
    expect(attemptsToPost(over)).toEqual([2]);
  });

  it('names none while there is nowhere to post, or when the status comment holds every transcript', () => {
    expect(attemptsToPost(fold(newJobReport(bare(), null), eventsOf()))).toEqual([]);
    const single = newJobReport({ ...bare(), comments: 'single' }, 12);
    expect(attemptsToPost(fold(single, eventsOf()))).toEqual([]);
  });
});
