import type { CodeHost } from '../code-host/code-host.js';
import type { LoopEvent } from '../loop/events.js';
import type { JobRequest } from '../queue/job-request.js';
import {
  attemptsToPost,
  type CommentMode,
  commitUrl,
  type JobReport,
  type JobView,
  newJobReport,
  type Redactor,
  type ReportChange,
  reduceJobReport,
} from '../report/index.js';
import type { Logger } from '../util/logger.js';
import { CheckRunWriter } from './check-run-writer.js';
import { CommentWriter } from './comment-writer.js';
import type { Delivery } from './execute-delivery.js';
import type { JobEnding, JobEventSink, ReporterSettings } from './job-events.js';
import { loggedWrite } from './logged-write.js';
import { reportChannel } from './report-target.js';
import { UpdateScheduler } from './update-scheduler.js';

/**
 * The most comments a job posts on one issue or pull request: the status
 * comment, one per attempt (none with `single`), and one closing comment
 * (the final comment, the refusal, or the fixed script of an issue; they
 * never come together). A job that moves to the pull request its fix opened
 * starts there afresh, having posted nothing before (docs/report.md).
 */
export function maxCommentsPerJob(maxAttempts: number, comments: CommentMode = 'per-attempt'): number {
  return (comments === 'single' ? 0 : maxAttempts) + 2;
}

export interface JobReporterOptions {
  request: JobRequest;
  host: CodeHost;
  redactor: Redactor;
  logger: Logger;
  /** The issue or pull request that gets comments, if any yet (the job's ReportTarget). */
  reportTo: number | null;
  handle: string;
  settings?: ReporterSettings;
}

/** Status updates closer together than this are folded into the next one (GitHub rate limits). */
const UPDATE_INTERVAL_MS = 2000;

const IMPORTANT_EVENTS: readonly LoopEvent['type'][] = [
  'reproduced',
  'attempt-started',
  'executed',
  'reflected',
  'finished',
];

/**
 * A job's report and what GitHub shows of it, subscribed to the job's
 * events (`hear`): they and what its writers posted are folded into one
 * JobReport (reduceJobReport), and the
 * status comment (edited in place), one comment per finished attempt (or,
 * with `single`, every transcript inside the status comment), the check run
 * and the final comment are rendered from it; at most `maxCommentsPerJob`
 * comments. Posting failures are logged and never stop the job: the
 * transcript is rebuilt from the report on the next update.
 */
export class JobReporter {
  private report: JobReport;
  private readonly comments: CommentWriter;
  private readonly checkRuns: CheckRunWriter;
  private readonly notices: string[] = [];
  private readonly updates = new UpdateScheduler(() => this.update(), UPDATE_INTERVAL_MS);

  constructor(private readonly options: JobReporterOptions) {
    const { request, host, redactor } = options;
    const settings = options.settings ?? {};
    this.report = newJobReport(
      {
        jobId: request.id,
        repository: `${request.repository.owner}/${request.repository.name}`,
        trigger: request.trigger,
        requestedBy: request.requestedBy,
        handle: options.handle,
        comments: settings.comments ?? 'per-attempt',
        notes: settings.notes ?? [],
      },
      options.reportTo,
    );
    const write = loggedWrite(options.logger, request.id);
    this.comments = new CommentWriter(host, request.id, redactor, write);
    this.checkRuns = new CheckRunWriter(host, redactor, write);
  }

  /**
   * The job's events, each folded into the report as it comes; what GitHub
   * shows follows from the report. Resolves to the view as it then stands.
   */
  readonly hear: JobEventSink = async (event) => {
    switch (event.type) {
      case 'job-started':
        this.started(event.headSha);
        return this.view();
      case 'pull-request-due':
        return this.settled();
      case 'moved-to':
        await this.movedTo(event.issueNumber);
        return this.view();
      case 'notice':
        this.notices.push(event.markdown);
        return this.view();
      case 'job-ended':
        return this.ended(event.ending);
      default:
        // The loop's events never wait for GitHub: updates go out one at a time, each showing every event up to then.
        this.change({ type: 'loop-event', event });
        this.updates.soon(IMPORTANT_EVENTS.includes(event.type));
        return this.view();
    }
  };

  private view(): JobView {
    return this.report.view;
  }

  /**
   * Creates the check run and the status comment in the background: with
   * Octokit's pacing they take seconds, and the job has better things to do.
   */
  private started(headSha: string): void {
    const commit = { sha: headSha, url: commitUrl(this.options.request.repository.cloneUrl, headSha) };
    this.change({ type: 'commit-known', commit });
    this.updates.start(() => this.open(headSha));
  }

  /**
   * Drops a scheduled update and waits for the one in flight: before the
   * final writes, and so a pull request can link to all of it (with
   * Octokit's pacing it would queue behind those writes anyway).
   */
  private async settled(): Promise<JobView> {
    await this.updates.idle();
    return this.view();
  }

  private async movedTo(issueNumber: number): Promise<void> {
    if (this.report.reportTo !== null) return;
    await this.updates.idle();
    this.change({ type: 'moved-to', issueNumber });
    await this.postAttempts();
  }

  /** A job that ended before its loop could finish says why where a closing comment would go. */
  private ended(ending: JobEnding): Promise<JobView> {
    switch (ending.kind) {
      case 'delivered':
        return this.finished(ending.delivery);
      case 'cancelled':
        return this.cancelled(ending.reason);
      case 'refused':
        return this.refused(ending.message, ending.headSha, ending.title);
      case 'failed':
        return this.refused(`The job failed before it could finish: ${ending.shown}`, ending.headSha);
    }
  }

  private async finished(delivery: Partial<Delivery>): Promise<JobView> {
    await this.updates.idle();
    this.change({
      type: 'delivered',
      pullRequestUrl: delivery.pullRequestUrl ?? null,
      deliveryError: delivery.deliveryError ?? null,
      fixSha: delivery.fixSha ?? null,
    });
    await this.postAttempts();
    const { reportTo } = this.report;
    if (reportTo !== null) await this.comments.final(reportTo, this.view());
    await this.updateStatus();
    await this.checkRuns.complete(this.report.checkRun, this.view(), delivery.fixSha ?? null, this.notices);
    return this.view();
  }

  /** The status shows it as cancelled, with who stopped it, as when the loop itself ends cancelled. */
  private async cancelled(reason: string): Promise<JobView> {
    const view = await this.settled();
    if (!view.finished) {
      this.change({
        type: 'loop-event',
        event: {
          type: 'finished',
          outcome: 'cancelled',
          reason,
          attempts: view.attempts.length,
          diff: '',
          changedFiles: [],
          total: view.total,
          durationMs: 0,
        },
      });
    }
    return this.finished({});
  }

  /** A job that cannot run as asked: one comment (or check run) saying why. */
  private async refused(message: string, headSha: string | null, title?: string): Promise<JobView> {
    await this.updates.idle();
    const text = this.options.redactor.redact(message);
    const channel = reportChannel({ issueNumber: this.report.reportTo, headSha });
    if (channel.kind === 'comment') await this.comments.refusal(channel.issueNumber, text);
    await this.checkRuns.refuse(this.report.checkRun, channel, text, title, this.notices);
    return this.view();
  }

  private change(change: ReportChange): void {
    this.report = reduceJobReport(this.report, change);
  }

  private async open(headSha: string): Promise<void> {
    const checkRun = await this.checkRuns.open(headSha);
    if (checkRun) this.change({ type: 'check-run-opened', checkRun });
    await this.updateStatus();
  }

  private async update(): Promise<void> {
    await this.postAttempts();
    await this.updateStatus();
    const { checkRun } = this.report;
    if (checkRun) await this.checkRuns.progress(checkRun, this.view());
  }

  /** Each attempt's comment rendered from the report as it is then, so it links to the ones before it. */
  private async postAttempts(): Promise<void> {
    const { reportTo } = this.report;
    if (reportTo === null) return;
    for (const attempt of attemptsToPost(this.report)) {
      const url = await this.comments.attempt(reportTo, this.view(), attempt);
      if (url !== null) this.change({ type: 'attempt-posted', attempt, url });
    }
  }

  private async updateStatus(): Promise<void> {
    const { reportTo } = this.report;
    if (reportTo === null) return;
    const url = await this.comments.status(reportTo, this.view());
    if (url !== null) this.change({ type: 'status-posted', url });
  }
}
