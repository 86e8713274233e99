import { type Trigger, triggers } from '../triggers/index.js';
import type { MarkdownWriter } from './markdown.js';

/** What the reports read of what started a job: the trigger, and who asked (or the run's actor). */
interface Triggered {
  trigger: Trigger;
  requestedBy: string;
}

/**
 * One sentence naming the trigger, as its kind words it. Issue numbers are
 * written by us, so they link; names and logins come from outside and go
 * through the writer (logins so the App never notifies the person on every edit).
 */
export function describeTrigger({ trigger, requestedBy }: Triggered, md: MarkdownWriter): string {
  return triggers.moduleOf(trigger).describe(trigger, requestedBy, md);
}

/** The issue a merged pull request should close, if the trigger's kind names one. */
export function issueToClose({ trigger }: Triggered): number | null {
  return triggers.moduleOf(trigger).issueToClose(trigger);
}

/** A review of the App's own fix: its command usually passes before the requested changes, and must after. */
export function isRevisionJob({ trigger }: Triggered): boolean {
  return triggers.moduleOf(trigger).loopMode(trigger) === 'revise';
}

export function isExplainJob({ trigger }: Triggered): boolean {
  return triggers.moduleOf(trigger).loopMode(trigger) === 'explain';
}

/** A failed CI run (the App's workflow-run job, the Action's run): every such job answers a failure nobody asked about by hand. */
export function isFailedRunJob({ trigger }: Triggered): boolean {
  return triggers.moduleOf(trigger).automatic;
}
