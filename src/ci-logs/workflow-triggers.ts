import { ignoredBy, includedBy } from './filter-pattern.js';
import { isRecord } from './workflow-yaml.js';

/** The events by which a push of selfdebug's branch, or its pull request, starts a workflow. */
export type BranchEvent = 'push' | 'pull_request' | 'pull_request_target' | 'workflow_run';

/** The branches a run would see: the App's branch names, and the branch its pull requests target. */
export interface BranchPush {
  /** Names the App's branches take (`selfdebug/issue-12-…`): a workflow runs when one of them passes its filters. */
  branches: readonly string[];
  /** The pull request's base: `pull_request` filters match it, not the pushed branch. */
  baseBranch: string;
}

/** One event that would start the workflow for the App's branch, and what limits it. */
export interface BranchTrigger {
  event: BranchEvent;
  /** `paths:` or `paths-ignore:` set: it runs only when the fix touches (or avoids) those files. */
  pathFiltered: boolean;
  /** `workflow_run`: the workflows whose runs start it. */
  after: string[];
}

/** Activity types for which a pull request event runs when the App opens its pull request or pushes to it. */
const PULL_REQUEST_ACTIVITY = ['opened', 'synchronize', 'reopened'];

/**
 * The events of a workflow's `on:` that the App's branch would trigger,
 * read from the parsed document. `on:` may be one event, a list, or a map
 * of events to their filters.
 */
export function branchTriggers(document: Record<string, unknown>, push: BranchPush): BranchTrigger[] {
  const events = eventsOf(document.on);
  const found: BranchTrigger[] = [];
  for (const [event, value] of Object.entries(events)) {
    if (!isBranchEvent(event)) continue;
    const filters = isRecord(value) ? value : {};
    if (!runsFor(event, filters, push)) continue;
    found.push({
      event,
      pathFiltered: filters.paths !== undefined || filters['paths-ignore'] !== undefined,
      after: event === 'workflow_run' ? list(filters.workflows) : [],
    });
  }
  return found;
}

function runsFor(event: BranchEvent, filters: Record<string, unknown>, push: BranchPush): boolean {
  if (event === 'push') {
    // Only tag filters: pushes to branches do not start it.
    const tagsOnly =
      filters.branches === undefined &&
      filters['branches-ignore'] === undefined &&
      (filters.tags !== undefined || filters['tags-ignore'] !== undefined);
    return !tagsOnly && push.branches.some((branch) => passes(filters, branch));
  }
  if (event === 'workflow_run') {
    // Its branch filters match the head branch of the run that triggered it: the App's own branch.
    return hasType(filters, ['requested', 'completed']) && push.branches.some((b) => passes(filters, b));
  }
  // pull_request and pull_request_target filter on the base branch, whatever the head is.
  return hasType(filters, PULL_REQUEST_ACTIVITY) && passes(filters, push.baseBranch);
}

function passes(filters: Record<string, unknown>, branch: string): boolean {
  if (filters.branches !== undefined) return includedBy(list(filters.branches), branch);
  if (filters['branches-ignore'] !== undefined) return !ignoredBy(list(filters['branches-ignore']), branch);
  return true;
}

/** Without `types:` an event runs for its default activities, which include the ones the App causes. */
function hasType(filters: Record<string, unknown>, wanted: readonly string[]): boolean {
  if (filters.types === undefined) return true;
  return list(filters.types).some((type) => wanted.includes(type));
}

function eventsOf(on: unknown): Record<string, unknown> {
  if (typeof on === 'string') return { [on]: null };
  if (Array.isArray(on)) {
    return Object.fromEntries(on.filter((event) => typeof event === 'string').map((event) => [event, null]));
  }
  return isRecord(on) ? on : {};
}

function isBranchEvent(event: string): event is BranchEvent {
  return ['push', 'pull_request', 'pull_request_target', 'workflow_run'].includes(event);
}

function list(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((entry) => typeof entry === 'string') : [];
}
