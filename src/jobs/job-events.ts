import type { EventSink } from '../loop/events.js';
import type { CommentMode, JobView } from '../report/index.js';
import type { Delivery } from './execute-delivery.js';

/** How a job reports, from the repository's `report` settings and the job's configuration. */
export interface ReporterSettings {
  /** `single`: no attempt comments; the status comment holds every transcript. */
  comments?: CommentMode;
  /** Shown in the status comment (e.g. a setting the operator's ceiling lowered), never as comments of their own. */
  notes?: readonly string[];
}

/**
 * What the runner tells a job's report, each when it happens; the closing
 * calls (finished, refused, cancelled) resolve to the view the job's history
 * keeps. The runner knows the report by this alone.
 */
export interface JobEvents {
  /** The loop's event sink. It never waits for GitHub. */
  readonly onEvent: EventSink;
  /** The job knows its commit: the check run and the status comment go up in the background. */
  started(headSha: string): void;
  /** Resolves once everything shown so far is posted, to the view that links to it (a pull request's body does). */
  settled(): Promise<JobView>;
  /** The fix's pull request: comments go there from now on when the job had nowhere to report before. */
  movedTo(issueNumber: number): Promise<void>;
  finished(delivery: Partial<Delivery>): Promise<JobView>;
  /** A job that cannot run as asked: one comment (or check run, under `title`) saying why. */
  refused(message: string, headSha: string | null, title?: string): Promise<JobView>;
  /** A job stopped before its loop could say so (while the sandbox opened or the environment was prepared). */
  cancelled(reason: string): Promise<JobView>;
}
