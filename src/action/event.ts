import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { actionScope } from '../environment/cache-scope.js';
import type { CacheScope } from '../sandbox/environment.js';
import type { RunnerContext } from './inputs.js';

const actorSchema = z.object({ login: z.string(), type: z.string().optional() });
/** A repository as events name one; GitHub sends null for the head of a pull request whose fork is gone. */
const repositorySchema = z
  .object({ id: z.int().optional(), full_name: z.string().optional(), default_branch: z.string().optional() })
  .loose();

/** The parts of the event payload the action reads; everything else GitHub sends is ignored. */
const eventSchema = z.object({
  sender: actorSchema.optional(),
  repository: repositorySchema.optional(),
  pull_request: z
    .object({
      number: z.int(),
      head: z.object({ ref: z.string(), sha: z.string(), repo: repositorySchema.nullish() }),
      base: z.object({ ref: z.string(), repo: repositorySchema.optional() }),
    })
    .optional(),
  workflow_run: z
    .object({
      id: z.int(),
      name: z.string().nullish(),
      head_branch: z.string().nullish(),
      head_sha: z.string(),
      run_attempt: z.int().optional(),
      actor: actorSchema.nullish(),
      repository: repositorySchema.optional(),
      head_repository: repositorySchema.nullish(),
    })
    .optional(),
});

/** What run the action debugs and on behalf of whom, whichever way the workflow started it. */
export interface FailedRun {
  runId: number;
  runAttempt: number;
  workflowName: string;
  /** The branch the failure is on: the pull request's head for a pull_request run. */
  branch: string;
  /** The commit that failed; a pull_request run's merge commit. */
  sha: string;
  actor: { login: string; type?: string };
  /** Set for pull_request runs: where suggestions go. */
  pullRequest: { number: number; headSha: string; base: string } | null;
  /** True when the action runs in a separate `workflow_run` workflow rather than in the failed job. */
  separate: boolean;
  /** Whose prepared environments setup reuses and fills; none when the runner does not name the repository. */
  cacheScope?: CacheScope | undefined;
  /**
   * The repository the failed code came from when it is not this one (a fork's pull request), as
   * `owner/name`; null when the event shows the head is this repository (or says nothing of it).
   */
  fork: string | null;
}

type Repository = z.output<typeof repositorySchema>;

/**
 * The head's name when it is another repository than the base, compared by id (a fork may take the
 * base's name); a head GitHub no longer knows (a deleted fork) counts as one.
 */
function forkOf(head: Repository | null | undefined, base: Repository | undefined): string | null {
  if (head === undefined || base?.id === undefined) return null;
  if (head === null) return 'a deleted fork';
  if (head.id === base.id) return null;
  return head.full_name ?? `the repository with id ${head.id}`;
}

type EventPayload = z.output<typeof eventSchema>;

/** The event payload, empty when the runner names none. */
async function readEventPayload(runner: RunnerContext): Promise<EventPayload | { problem: string }> {
  if (runner.GITHUB_EVENT_PATH === undefined) return {};
  const text = await readFile(runner.GITHUB_EVENT_PATH, 'utf8').catch(() => null);
  if (text === null)
    return { problem: `cannot read the event payload at GITHUB_EVENT_PATH (${runner.GITHUB_EVENT_PATH})` };
  const parsed = eventSchema.safeParse(JSON.parse(text));
  if (!parsed.success)
    return { problem: `the event payload is not as expected: ${z.prettifyError(parsed.error)}` };
  return parsed.data;
}

export async function readFailedRun(runner: RunnerContext): Promise<FailedRun | { problem: string }> {
  const payload = await readEventPayload(runner);
  if ('problem' in payload) return payload;
  const sender = payload.sender ?? { login: runner.GITHUB_ACTOR };
  const run = payload.workflow_run;
  if (runner.GITHUB_EVENT_NAME === 'workflow_run' && run !== undefined) {
    return {
      runId: run.id,
      runAttempt: run.run_attempt ?? 1,
      workflowName: run.name ?? 'workflow',
      branch: run.head_branch ?? '',
      sha: run.head_sha,
      actor: run.actor ?? sender,
      pullRequest: null,
      separate: true,
      cacheScope: scopeOf(runner, payload, workflowRunRef(run, payload.repository?.id)),
      fork: forkOf(run.head_repository, run.repository ?? payload.repository),
    };
  }
  if (runner.GITHUB_RUN_ID === undefined || runner.GITHUB_SHA === undefined) {
    return {
      problem: 'GITHUB_RUN_ID and GITHUB_SHA are not set: run this as a step of a GitHub Actions job',
    };
  }
  const pull = payload.pull_request;
  return {
    runId: runner.GITHUB_RUN_ID,
    runAttempt: runner.GITHUB_RUN_ATTEMPT,
    workflowName: runner.GITHUB_WORKFLOW,
    branch: pull?.head.ref ?? runner.GITHUB_HEAD_REF ?? branchOf(runner.GITHUB_REF),
    sha: runner.GITHUB_SHA,
    actor: sender,
    pullRequest:
      pull === undefined ? null : { number: pull.number, headSha: pull.head.sha, base: pull.base.ref },
    separate: false,
    // A pull request's run is on refs/pull/N/merge: it reads the default branch's entries, never fills them.
    cacheScope: scopeOf(runner, payload, runner.GITHUB_REF),
    fork: pull === undefined ? null : forkOf(pull.head.repo, pull.base.repo ?? payload.repository),
  };
}

/**
 * The failed run's own ref, not this workflow's (a workflow_run workflow runs
 * on the default branch): a fork's branch gets a ref of its own, since its
 * name (even `main`) says nothing about whose code it is.
 */
function workflowRunRef(
  run: NonNullable<EventPayload['workflow_run']>,
  repositoryId: number | undefined,
): string {
  const branch = run.head_branch ?? '';
  const fork = run.head_repository?.id !== undefined && run.head_repository.id !== repositoryId;
  if (fork || branch === '') return `refs/selfdebug/run/${run.head_repository?.id ?? 'unknown'}/${branch}`;
  return `refs/heads/${branch}`;
}

function scopeOf(runner: RunnerContext, payload: EventPayload, ref: string): CacheScope | undefined {
  const repositoryId = runner.GITHUB_REPOSITORY_ID ?? payload.repository?.id?.toString();
  if (repositoryId === undefined || ref === '') return undefined;
  const defaultBranch = payload.repository?.default_branch;
  // Without the default branch the job reads only its own ref's entries.
  return actionScope({ repositoryId, ref, defaultBranch: defaultBranch ?? ref });
}

/** A tag or other ref has no branch to push a fix against: the empty name says so. */
function branchOf(ref: string): string {
  return ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : '';
}
