import type { CheckOutput, CodeHost } from '../code-host/code-host.js';
import type { LoopEvent } from '../loop/events.js';
import type { JobRequest } from '../queue/job-request.js';
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

/** How a job reports, from the repository's `report` settings and the job's configuration. */
export interface ReporterSettings {
  /** `single`: no attempt comments; the status comment holds every transcript. */
  comments?: CommentMode;
  /** Shown in the status comment (e.g. a setting the operator's ceiling lowered), never as comments of their own. */
  notes?: readonly string[];
}

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

/** Status updates closer together than this are folded into the next one (GitHub rate limits). */
const UPDATE_INTERVAL_MS = 2000;

/**
 * Keeps a job's events and turns them into what GitHub shows: the status
 * comment (edited in place), one comment per finished attempt (or, with
 * `single`, every transcript inside the status comment), the check run, and
 * the final comment; at most `maxCommentsPerJob` comments. Posting failures
 * are logged and never stop the job: the transcript is rebuilt from the
 * events on the next update.
 */
export class JobReporter {
  private readonly events: LoopEvent[] = [];
  private readonly attemptUrls: Record<number, string> = {};
  private statusUrl: string | null = null;
  private pullRequestUrl: string | null = null;
  private deliveryError: string | null = null;
  private checkRun: { id: number; url: string } | null = null;
  private headSha: string | null = null;
  private lastUpdate = 0;
  private pending: ReturnType<typeof setTimeout> | null = null;
  /** The update being posted; events meanwhile set `again` and are folded into one more. */
  private running: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly request: JobRequest,
    private readonly host: CodeHost,
    private readonly redactor: Redactor,
    private readonly logger: Logger,
    private reportTo: number | null,
    private readonly handle: string,
    private readonly settings: ReporterSettings = {},
  ) {}

  get transcript(): readonly LoopEvent[] {
    return this.events;
  }

  /**
   * Creates the check run and the status comment in the background: with
   * Octokit's pacing they take seconds, and the job has better things to do.
   * Later updates queue behind them.
   */
  start(headSha: string): void {
    this.headSha = headSha;
    this.inBackground(() => this.open(headSha));
  }

  /**
   * Resolves once everything shown so far is posted (status comment, finished
   * attempts), dropping a scheduled update: before the final writes, and so a
   * pull request can link to all of it (with Octokit's pacing it would queue
   * behind those writes anyway).
   */
  async caughtUp(): Promise<void> {
    this.cancelScheduled();
    while (this.running) await this.running;
  }

  private async open(headSha: string): Promise<void> {
    this.lastUpdate = Date.now();
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

  /**
   * The loop's event sink. It never waits for GitHub: Octokit spaces writes
   * a second apart (three for new comments) to respect GitHub's secondary
   * rate limits, and a job should not run slower for it. Updates go out one
   * at a time, each showing every event up to then.
   */
  readonly onEvent = async (event: LoopEvent): Promise<void> => {
    this.events.push(event);
    const important = ['reproduced', 'attempt-started', 'executed', 'reflected', 'finished'].includes(
      event.type,
    );
    if (important || Date.now() - this.lastUpdate >= UPDATE_INTERVAL_MS) this.requestUpdate();
    else this.schedule();
  };

  /** Where comments go from now on (the pull request a run's fix opened). */
  async moveTo(issueNumber: number): Promise<void> {
    if (this.reportTo !== null) return;
    await this.caughtUp();
    this.reportTo = issueNumber;
    for (const attempt of this.attemptNumbers()) await this.postAttempt(attempt);
  }

  async finish(delivery: {
    pullRequestUrl?: string | null;
    deliveryError?: string | null;
    fixSha?: string | null;
  }) {
    await this.caughtUp();
    this.pullRequestUrl = delivery.pullRequestUrl ?? null;
    this.deliveryError = delivery.deliveryError ?? null;
    for (const attempt of this.attemptNumbers()) await this.postAttempt(attempt);
    const view = this.view();
    if (view.finished && needsFinalComment(view.finished.outcome) && this.reportTo !== null) {
      await this.safely('post the final comment', () =>
        this.host.upsertComment(
          this.reportTo!,
          finalMarker(this.request.id),
          renderFinalComment(view, this.redactor),
        ),
      );
    }
    await this.updateStatus();
    const result = renderCheckRunResult(view, this.redactor);
    const { annotations, ...withoutAnnotations } = result.output;
    if (this.checkRun) {
      const checkRun = this.checkRun;
      await this.safely('complete the check run', () =>
        this.host.updateCheckRun(checkRun.id, {
          status: 'completed',
          conclusion: result.conclusion,
          output: withoutAnnotations,
        }),
      );
    }
    // Annotations point at lines of the fixed files, so they go on a check run for the fix's commit.
    if (delivery.fixSha && annotations && annotations.length > 0) {
      const fixSha = delivery.fixSha;
      await this.safely('annotate the fix', () =>
        this.host.createCheckRun({
          name: 'selfdebug',
          headSha: fixSha,
          status: 'completed',
          conclusion: result.conclusion,
          output: result.output,
        }),
      );
    }
  }

  /**
   * A job stopped before its loop could say so (while the sandbox opened or
   * the environment was prepared): the status shows it as cancelled, with
   * who stopped it, as when the loop itself ends cancelled.
   */
  async cancel(reason: string): Promise<void> {
    await this.caughtUp();
    const view = this.view();
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
    await this.finish({});
  }

  /** A job that cannot run as asked: one comment (or check run) saying why. */
  async refuse(message: string, headSha: string | null): Promise<void> {
    await this.caughtUp();
    const text = this.redactor.redact(message);
    if (this.reportTo !== null) {
      await this.safely('post the refusal', () =>
        this.host.upsertComment(
          this.reportTo!,
          finalMarker(this.request.id),
          `${finalMarker(this.request.id)}\n${text}`,
        ),
      );
    }
    const output: CheckOutput = { title: 'selfdebug could not run', summary: text };
    if (this.checkRun) {
      const checkRun = this.checkRun;
      await this.safely('complete the check run', () =>
        this.host.updateCheckRun(checkRun.id, { status: 'completed', conclusion: 'neutral', output }),
      );
    } else if (headSha && this.reportTo === null) {
      await this.safely('report the refusal', () =>
        this.host.createCheckRun({
          name: 'selfdebug',
          headSha,
          status: 'completed',
          conclusion: 'neutral',
          output,
        }),
      );
    }
  }

  private attemptNumbers(): number[] {
    const view = this.view();
    const done = view.finished ? view.attempts : view.attempts.slice(0, -1);
    return done.map((attempt) => attempt.number).filter((number) => !(number in this.attemptUrls));
  }

  private async postAttempt(attempt: number): Promise<void> {
    if (this.reportTo === null || attempt in this.attemptUrls || this.settings.comments === 'single') return;
    const body = renderAttemptComment(this.view(), attempt, this.redactor);
    await this.safely(`post attempt ${attempt}`, async () => {
      const posted = await this.host.upsertComment(
        this.reportTo!,
        attemptMarker(this.request.id, attempt),
        body,
      );
      this.attemptUrls[attempt] = posted.url;
    });
  }

  /** Starts an update now, or marks one due after the update in flight. */
  private requestUpdate(): void {
    this.cancelScheduled();
    if (this.running) {
      this.again = true;
      return;
    }
    this.again = false;
    this.inBackground(async () => {
      this.lastUpdate = Date.now();
      for (const attempt of this.attemptNumbers()) await this.postAttempt(attempt);
      await this.update();
    });
  }

  /** Runs `work` as the one write in flight; an update asked for meanwhile follows it. */
  private inBackground(work: () => Promise<void>): void {
    this.running = work().finally(() => {
      this.running = null;
      if (this.again) this.requestUpdate();
    });
  }

  private async update(): Promise<void> {
    await this.updateStatus();
    if (this.checkRun) {
      const checkRun = this.checkRun;
      const output = renderCheckRunProgress(this.view(), this.redactor);
      await this.safely('update the check run', () =>
        this.host.updateCheckRun(checkRun.id, { status: 'in_progress', output }),
      );
    }
  }

  private async updateStatus(): Promise<void> {
    if (this.reportTo === null) return;
    const body = renderStatusComment(this.view(), this.redactor);
    await this.safely('update the status comment', async () => {
      const posted = await this.host.upsertComment(this.reportTo!, statusMarker(this.request.id), body);
      this.statusUrl = posted.url;
    });
  }

  private schedule(): void {
    if (this.pending) return;
    this.pending = setTimeout(() => {
      this.pending = null;
      this.requestUpdate();
    }, UPDATE_INTERVAL_MS);
    this.pending.unref();
  }

  private cancelScheduled(): void {
    if (this.pending) clearTimeout(this.pending);
    this.pending = null;
  }

  view() {
    return jobView(
      {
        jobId: this.request.id,
        repository: `${this.request.repository.owner}/${this.request.repository.name}`,
        trigger: summarizeTrigger(this.request),
        handle: this.handle,
        statusCommentUrl: this.statusUrl,
        attemptCommentUrls: this.attemptUrls,
        pullRequestUrl: this.pullRequestUrl,
        checkRunUrl: this.checkRun?.url ?? null,
        deliveryError: this.deliveryError,
        commit: this.headSha
          ? { sha: this.headSha, url: commitUrl(this.request.repository.cloneUrl, this.headSha) }
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
      this.logger.warn(
        { job: this.request.id, error: error instanceof Error ? error.message : String(error) },
        `could not ${what}`,
      );
    }
  }
}
