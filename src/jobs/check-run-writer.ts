import type { CheckConclusion, CheckOutput, CodeHost } from '../code-host/code-host.js';
import {
  type JobView,
  type OpenCheckRun,
  type Redactor,
  renderCheckRunProgress,
  renderCheckRunResult,
  withNotices,
} from '../report/index.js';
import type { LoggedWrite } from './logged-write.js';
import type { ReportChannel } from './report-target.js';

const NAME = 'selfdebug';

/**
 * A job's check run, rendered from the view it is given: opened when the
 * job knows its commit, updated as it goes, completed at the end. It keeps
 * nothing: the check run it opens is returned for the job's report to hold.
 */
export class CheckRunWriter {
  constructor(
    private readonly host: CodeHost,
    private readonly redactor: Redactor,
    private readonly write: LoggedWrite,
  ) {}

  open(headSha: string): Promise<OpenCheckRun | null> {
    return this.write('create the check run', () =>
      this.host.createCheckRun({
        name: NAME,
        headSha,
        status: 'in_progress',
        output: { title: 'Starting', summary: 'selfdebug is preparing the job.' },
      }),
    );
  }

  async progress(checkRun: OpenCheckRun, view: JobView): Promise<void> {
    const output = renderCheckRunProgress(view, this.redactor);
    await this.write('update the check run', () =>
      this.host.updateCheckRun(checkRun.id, { status: 'in_progress', output }),
    );
  }

  /**
   * The result, with the notices above it; annotations point at lines of the
   * fixed files, so they go on a check run for the fix's commit.
   */
  async complete(
    checkRun: OpenCheckRun | null,
    view: JobView,
    fixSha: string | null,
    notices: readonly string[] = [],
  ): Promise<void> {
    const rendered = renderCheckRunResult(view, this.redactor);
    const result = { ...rendered, output: withNotices(rendered.output, notices) };
    const { annotations, ...withoutAnnotations } = result.output;
    const { conclusion } = result;
    if (checkRun) await this.completeOpen(checkRun, conclusion, withoutAnnotations);
    if (fixSha && annotations && annotations.length > 0) {
      await this.createCompleted('annotate the fix', fixSha, conclusion, result.output);
    }
  }

  /** A job that could not run: its open check run says why, or, with no conversation, a new one on the commit. */
  async refuse(
    checkRun: OpenCheckRun | null,
    channel: ReportChannel,
    text: string,
    title = 'selfdebug could not run',
    notices: readonly string[] = [],
  ): Promise<void> {
    // Notices go on top however the job ended: a first job that failed still tells of CI secrets.
    const output = withNotices({ title, summary: text }, notices);
    if (checkRun) await this.completeOpen(checkRun, 'neutral', output);
    else if (channel.kind === 'check-run')
      await this.createCompleted('report the refusal', channel.headSha, 'neutral', output);
  }

  private async completeOpen(checkRun: OpenCheckRun, conclusion: CheckConclusion, output: CheckOutput) {
    await this.write('complete the check run', () =>
      this.host.updateCheckRun(checkRun.id, { status: 'completed', conclusion, output }),
    );
  }

  /** A check run that is over as it is created. */
  private async createCompleted(
    what: string,
    headSha: string,
    conclusion: CheckConclusion,
    output: CheckOutput,
  ): Promise<void> {
    await this.write(what, () =>
      this.host.createCheckRun({ name: NAME, headSha, status: 'completed', conclusion, output }),
    );
  }
}
