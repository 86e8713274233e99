import type { CodeHost } from '../code-host/code-host.js';
import {
  attemptMarker,
  finalMarker,
  type JobView,
  needsFinalComment,
  type Redactor,
  renderAttemptComment,
  renderFinalComment,
  renderStatusComment,
  statusMarker,
} from '../report/index.js';
import type { LoggedWrite } from './logged-write.js';

/**
 * A job's comments, each rendered from the view it is given and found again
 * by its marker: the status comment (edited in place), one per attempt, and
 * one closing comment. Returns where a comment went; it keeps nothing.
 */
export class CommentWriter {
  constructor(
    private readonly host: CodeHost,
    private readonly jobId: string,
    private readonly redactor: Redactor,
    private readonly write: LoggedWrite,
  ) {}

  /** The status comment's URL, or null when it could not be posted. */
  status(issue: number, view: JobView): Promise<string | null> {
    const body = renderStatusComment(view, this.redactor);
    return this.post('update the status comment', issue, statusMarker(this.jobId), body);
  }

  /** The attempt's comment URL, or null when it could not be posted. */
  attempt(issue: number, view: JobView, attempt: number): Promise<string | null> {
    const body = renderAttemptComment(view, attempt, this.redactor);
    return this.post(`post attempt ${attempt}`, issue, attemptMarker(this.jobId, attempt), body);
  }

  /** The final comment, for the outcomes that need one. */
  async final(issue: number, view: JobView): Promise<void> {
    if (!view.finished || !needsFinalComment(view.finished.outcome)) return;
    const body = renderFinalComment(view, this.redactor);
    await this.post('post the final comment', issue, finalMarker(this.jobId), body);
  }

  /** Why the job could not run, in the closing comment's place; `text` is redacted already. */
  async refusal(issue: number, text: string): Promise<void> {
    const marker = finalMarker(this.jobId);
    await this.post('post the refusal', issue, marker, `${marker}\n${text}`);
  }

  private post(what: string, issue: number, marker: string, body: string): Promise<string | null> {
    return this.write(what, async () => (await this.host.upsertComment(issue, marker, body)).url);
  }
}
