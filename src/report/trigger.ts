import { type JobRequest, loopModeOf } from '../queue/job-request.js';
import type { MarkdownWriter } from './markdown.js';

/** What started a job, reduced to what the reports show. Plain data, so it can be stored with the job. */
export type TriggerSummary =
  | {
      kind: 'mention';
      command: 'fix' | 'explain';
      issueNumber: number;
      isPullRequest: boolean;
      requestedBy: string;
    }
  | {
      kind: 'workflow-run';
      workflowName: string;
      runId: number;
      runAttempt: number;
      branch: string;
      requestedBy: string;
    }
  | { kind: 'review'; pullNumber: number; requestedBy: string };

export function summarizeTrigger(request: JobRequest): TriggerSummary {
  const { trigger, requestedBy } = request;
  switch (trigger.kind) {
    case 'mention':
      return {
        kind: 'mention',
        command: trigger.command,
        issueNumber: trigger.issueNumber,
        isPullRequest: trigger.isPullRequest,
        requestedBy,
      };
    case 'workflow-run':
      return {
        kind: 'workflow-run',
        workflowName: trigger.workflowName,
        runId: trigger.runId,
        runAttempt: trigger.runAttempt,
        branch: trigger.branch,
        requestedBy,
      };
    case 'review':
      return { kind: 'review', pullNumber: trigger.pullNumber, requestedBy };
  }
}

/** The issue a merged pull request should close: only an issue (not a pull request) that asked for the fix. */
export function issueToClose(trigger: TriggerSummary): number | null {
  return trigger.kind === 'mention' && !trigger.isPullRequest && trigger.command === 'fix'
    ? trigger.issueNumber
    : null;
}

/** A review of the App's own fix: its command usually passes before the requested changes, and must after. */
export function isRevisionJob(trigger: TriggerSummary): boolean {
  return loopModeOf(trigger) === 'revise';
}

export function isExplainJob(trigger: TriggerSummary): boolean {
  return loopModeOf(trigger) === 'explain';
}

/**
 * One sentence naming the trigger. Issue numbers are written by us, so
 * they link; names and logins come from outside and go through the writer
 * (logins so the App never notifies the person on every edit).
 */
export function describeTrigger(trigger: TriggerSummary, md: MarkdownWriter): string {
  switch (trigger.kind) {
    case 'mention': {
      const where = trigger.isPullRequest ? 'pull request' : 'issue';
      return `Asked by ${md.line(`@${trigger.requestedBy}`, 60)} in ${where} #${trigger.issueNumber}`;
    }
    case 'workflow-run':
      return (
        `Workflow ${md.code(trigger.workflowName, 100)} failed on ${md.code(trigger.branch, 100)} ` +
        `(run ${trigger.runId}, attempt ${trigger.runAttempt})`
      );
    case 'review':
      return `Review by ${md.line(`@${trigger.requestedBy}`, 60)} on pull request #${trigger.pullNumber}`;
  }
}
