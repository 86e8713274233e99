import type { CheckConclusion, CheckOutput, CodeHost } from '../code-host/code-host.js';
import type { LoopEvent } from '../loop/events.js';
import type { JobRequest } from '../queue/job-request.js';
import type { JobView } from '../report/index.js';
import {
  attemptMarker,
  type CommentMode,
  commitUrl,
  finalMarker,
  jobView,
  needsFinalComment,
  type Redactor,
  renderAttemptComment,
  renderCheckRunProgress,
  renderCheckRunResult,
  renderFinalComment,
  renderStatusComment,
  statusMarker,
  summarizeTrigger,
} from '../report/index.js';
import type { Logger } from '../util/logger.js';
import type { Delivery } from './execute-delivery.js';
import type { JobEvents, ReporterSettings } from './job-events.js';
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
 * Keeps a job's events and turns them into what GitHub shows: the status
 * comment (edited in place), one comment per finished attempt (or, with
 * `single`, every transcript inside the status comment), the check run, and
 * the final comment; at most `maxCommentsPerJob` comments. Posting failures
 * are logged and never stop the job: the transcript is rebuilt from the
 * events on the next update.
 */
export class JobReporter implements JobEvents {
  private readonly events: LoopEvent[] = [];
  private readonly attemptUrls: Record<number, string> = {};
  private statusUrl: string | null = null;
  private pullRequestUrl: string | null = null;
  private deliveryError: string | null = null;
  private checkRun: { id: number; url: string } | null = null;
  private headSha: string | null = null;
  private reportTo: number | null;
  private readonly request: JobRequest;
  private readonly host: CodeHost;
  private readonly redactor: Redactor;
  private readonly settings: ReporterSettings;
  private readonly updates = new UpdateScheduler(async () => {
    await this.postAttempts();
    await this.update();
  }, UPDATE_INTERVAL_MS);

  constructor(private readonly options: JobReporterOptions) {
    this.request = options.request;
    this.host = options.host;
    this.redactor = options.redactor;
    this.reportTo = options.reportTo;
    this.settings = options.settings ?? {};
  }

  /**
   * Creates the check run and the status comment in the background: with
   * Octokit's pacing they take seconds, and the job has better things to do.
   */
  started(headSha: string): void {
    this.headSha = headSha;
    this.updates.start(() => this.open(headSha));
  }

  /**
   * Drops a scheduled update and waits for the one in flight: before the
   * final writes, and so a pull request can link to all of it (with
   * Octokit's pacing it would queue behind those writes anyway).
   */
  async settled(): Promise<JobView> {
    await this.updates.idle();
    return this.view();
  }

  private async open(headSha: string): Promise<void> {
    await this.safely('create the check run', async () => {
      this.checkRun = await this.host.createCheckRun({
        name: 'selfdebug',
        headSha,
        status: 'in_progress',
        output: { title: 'Starting', summary: 'selfdebug is preparing the job.' },
      });
    });
    await this.updateStatus();
  }

  /** Updates go out one at a time, each showing every event up to then. */
  readonly onEvent = async (event: LoopEvent): Promise<void> => {
    this.events.push(event);
    this.updates.soon(IMPORTANT_EVENTS.includes(event.type));
  };

  async movedTo(issueNumber: number): Promise<void> {
    if (this.reportTo !== null) return;
    await this.updates.idle();
    this.reportTo = issueNumber;
    await this.postAttempts();
  }

  async finished(delivery: Partial<Delivery>): Promise<JobView> {
    await this.updates.idle();
    this.pullRequestUrl = delivery.pullRequestUrl ?? null;
    this.deliveryError = delivery.deliveryError ?? null;
    await this.postAttempts();
    const view = this.view();
    if (view.finished && needsFinalComment(view.finished.outcome) && this.reportTo !== null) {
      const issue = this.reportTo;
      await this.safely('post the final comment', () =>
        this.host.upsertComment(issue, finalMarker(this.request.id), renderFinalComment(view, this.redactor)),
      );
    }
    await this.updateStatus();
    await this.completeCheckRuns(delivery.fixSha ?? null);
    return this.view();
  }

  /** The check run's result; annotations point at lines of the fixed files, so they go on a check run for the fix's commit. */
  private async completeCheckRuns(fixSha: string | null): Promise<void> {
    const result = renderCheckRunResult(this.view(), this.redactor);
    const { annotations, ...withoutAnnotations } = result.output;
    const { conclusion } = result;
    const checkRun = this.checkRun;
    if (checkRun) {
      await this.safely('complete the check run', () =>
        this.host.updateCheckRun(checkRun.id, {
          status: 'completed',
          conclusion,
          output: withoutAnnotations,
        }),
      );
    }
    if (fixSha && annotations && annotations.length > 0) {
      await this.createCompletedCheckRun('annotate the fix', fixSha, conclusion, result.output);
    }
  }

  /** A check run that is over as it is created: the fix's annotations, or a refusal when no check run was open. */
  private async createCompletedCheckRun(
    what: string,
    headSha: string,
    conclusion: CheckConclusion,
    output: CheckOutput,
  ) {
    await this.safely(what, () =>
      this.host.createCheckRun({ name: 'selfdebug', headSha, status: 'completed', conclusion, output }),
    );
  }

  /** The status shows it as cancelled, with who stopped it, as when the loop itself ends cancelled. */
  async cancelled(reason: string): Promise<JobView> {
    const view = await this.settled();
    if (!view.finished) {
      this.events.push({
        type: 'finished',
        outcome: 'cancelled',
        reason,
        attempts: view.attempts.length,
        diff: '',
        changedFiles: [],
        total: view.total,
        durationMs: 0,
      });
    }
    return this.finished({});
  }

  async refused(message: string, headSha: string | null): Promise<JobView> {
    await this.updates.idle();
    const text = this.redactor.redact(message);
    const channel = reportChannel({ issueNumber: this.reportTo, headSha });
    if (channel.kind === 'comment') {
      const marker = finalMarker(this.request.id);
      await this.safely('post the refusal', () =>
        this.host.upsertComment(channel.issueNumber, marker, `${marker}\n${text}`),
      );
    }
    const output: CheckOutput = { title: 'selfdebug could not run', summary: text };
    const checkRun = this.checkRun;
    if (checkRun) {
      await this.safely('complete the check run', () =>
        this.host.updateCheckRun(checkRun.id, { status: 'completed', conclusion: 'neutral', output }),
      );
    } else if (channel.kind === 'check-run') {
      await this.createCompletedCheckRun('report the refusal', channel.headSha, 'neutral', output);
    }
    return this.view();
  }

  private async postAttempts(): Promise<void> {
    const view = this.view();
    const done = view.finished ? view.attempts : view.attempts.slice(0, -1);
    for (const { number } of done) if (!(number in this.attemptUrls)) await this.postAttempt(number);
  }

  private async postAttempt(attempt: number): Promise<void> {
    if (this.reportTo === null || attempt in this.attemptUrls || this.settings.comments === 'single') return;
    const issue = this.reportTo;
    const body = renderAttemptComment(this.view(), attempt, this.redactor);
    await this.safely(`post attempt ${attempt}`, async () => {
      const posted = await this.host.upsertComment(issue, attemptMarker(this.request.id, attempt), body);
      this.attemptUrls[attempt] = posted.url;
    });
  }

  private async update(): Promise<void> {
    await this.updateStatus();
    const checkRun = this.checkRun;
    if (checkRun) {
      const output = renderCheckRunProgress(this.view(), this.redactor);
      await this.safely('update the check run', () =>
        this.host.updateCheckRun(checkRun.id, { status: 'in_progress', output }),
      );
    }
  }

  private async updateStatus(): Promise<void> {
    if (this.reportTo === null) return;
    const issue = this.reportTo;
    const body = renderStatusComment(this.view(), this.redactor);
    await this.safely('update the status comment', async () => {
      const posted = await this.host.upsertComment(issue, statusMarker(this.request.id), body);
      this.statusUrl = posted.url;
    });
  }

  view(): JobView {
    const { request } = this;
    return jobView(
      {
        jobId: request.id,
        repository: `${request.repository.owner}/${request.repository.name}`,
        trigger: summarizeTrigger(request),
        handle: this.options.handle,
        statusCommentUrl: this.statusUrl,
        attemptCommentUrls: this.attemptUrls,
        pullRequestUrl: this.pullRequestUrl,
        checkRunUrl: this.checkRun?.url ?? null,
        deliveryError: this.deliveryError,
        commit: this.headSha
          ? { sha: this.headSha, url: commitUrl(request.repository.cloneUrl, this.headSha) }
          : null,
        comments: this.settings.comments ?? 'per-attempt',
        notes: this.settings.notes ?? [],
      },
      this.events,
    );
  }

  private async safely(what: string, action: () => Promise<unknown>): Promise<void> {
    try {
      await action();
    } catch (error) {
      this.options.logger.warn(
        { job: this.request.id, error: error instanceof Error ? error.message : String(error) },
        `could not ${what}`,
      );
    }
  }
}
