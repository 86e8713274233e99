import type { CodeHost } from '../code-host/code-host.js';
import {
  type TriggerRegistry,
  type TriggerRequest,
  type TriggerTarget,
  triggers,
} from '../triggers/index.js';

/** Where a job reads, where its fix goes, and where it reports. */
export interface JobTarget extends TriggerTarget {
  /** The issue or pull request that gets comments, if any yet: the job's ReportTarget, worked out once. */
  reportTo: number | null;
}

/**
 * Turns a request into concrete commits and branches, as its trigger kind
 * says (asking GitHub what the webhook did not say: an issue mention does
 * not name a commit; a comment on a PR does not carry the PR's head).
 * `reportTo` is the job's, passed through for the delivery.
 */
export async function resolveTarget<T extends { kind: string }>(
  request: TriggerRequest<T>,
  host: CodeHost,
  reportTo: number | null,
  registry: TriggerRegistry = triggers,
): Promise<JobTarget> {
  return { ...(await registry.moduleOf(request.trigger).target(request, host)), reportTo };
}
