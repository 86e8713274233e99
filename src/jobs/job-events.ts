import type { LoopEvent } from '../loop/events.js';
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
 * What happened to a job, in the order it happened: the loop's own events
 * and the job's (it knows its commit, its pull request is about to be
 * opened, the report moves to that pull request, and how it ended). The
 * runner only tells; the reporter listens and writes.
 */
type JobEvent =
  | LoopEvent
  | { type: 'job-started'; headSha: string }
  /** A new pull request is about to be opened: its body links to every comment posted so far. */
  | { type: 'pull-request-due' }
  /** The fix's pull request: comments go there from now on when the job had nowhere to report before. */
  | { type: 'moved-to'; issueNumber: number }
  /** Markdown the check run shows above its result when it completes (the CI secrets warning, docs/ci-secrets.md). */
  | { type: 'notice'; markdown: string }
  | { type: 'job-ended'; ending: JobEnding };

/**
 * How a job ended, as a value: its delivery (whatever the loop's outcome),
 * a refusal (it cannot run as asked), a cancellation the loop did not see,
 * or a failure before it could finish.
 */
export type JobEnding =
  | { kind: 'delivered'; delivery: Partial<Delivery> }
  /** `title`: the check run's, when the refusal has one of its own (a failure that is not the code's). */
  | { kind: 'refused'; message: string; headSha: string | null; title?: string }
  | { kind: 'cancelled'; reason: string }
  /** `shown`: the message as the report shows it (a failed setup step as Markdown). */
  | { kind: 'failed'; message: string; shown: string; headSha: string | null };

/**
 * The job's report as the runner knows it: told each event, it resolves to
 * the view as it then stands. An event of the loop resolves at once (it
 * never waits for GitHub); `pull-request-due` and `job-ended` once
 * everything shown is written, to the view that links to it.
 */
export type JobEventSink = (event: JobEvent) => Promise<JobView>;
