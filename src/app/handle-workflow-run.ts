import type { Context } from 'probot';
import type { CodeHost } from '../code-host/code-host.js';
import { repositoryKey } from '../queue/job-request.js';
import { Redactor, renderConfigProblemCheckRun } from '../report/index.js';
import { matchesAny } from '../util/glob.js';
import { isOwnBranch } from '../workspace/selfdebug-branches.js';
import { authorize, type Sender } from './authorize.js';
import { jobRequest } from './build-request.js';
import type { AppDependencies, HandlerRepoConfig } from './dependencies.js';
import { enqueueWithinCeiling } from './enqueue-within-ceiling.js';

/**
 * A failed workflow run, where `.github/selfdebug.yml` enables it for that
 * workflow and branch. Runs from forks are never picked up: their code would
 * run near the App's credentials and a fix could not be pushed to the fork.
 * The run's actor must be someone who may start a job (write access,
 * `allowed_users`), as for a mention: a read-only user can make a run fail
 * on a branch of the repository (workflows `on: issues`, `issue_comment`,
 * `pull_request_target`…), and bots are not obeyed. The one exception is
 * the App itself on its own `selfdebug/` branch (its fix failing CI), which
 * the job caps at `max_rounds`.
 */
export async function handleWorkflowRun(
  context: Context<'workflow_run.completed'>,
  dependencies: AppDependencies,
): Promise<void> {
  const { workflow_run: run, repository } = context.payload;
  await followCi(context, dependencies);
  if (run.conclusion !== 'failure') return;
  const config = await dependencies.repoConfigFor(context);
  if (!config.ok) return reportInvalidConfig(context, dependencies, config.message);
  const workflowPath = run.path ?? context.payload.workflow?.path ?? '';
  const branch = run.head_branch ?? '';
  if (!wanted(config.config.workflowRuns, [run.name ?? '', workflowPath], branch)) return;

  const host = dependencies.codeHostFor(context);
  if (run.head_repository?.full_name !== repository.full_name) return skipFork(host, run.head_sha);
  const actor = run.actor ?? context.payload.sender;
  if (!(await mayStart(context, dependencies, host, config.config, actor))) return;

  const key = repositoryKey({ owner: repository.owner.login, name: repository.name });
  const job = jobRequest(context, dependencies, {
    repository,
    requestedBy: actor.login,
    headSha: run.head_sha,
    baseBranch: branch,
    trigger: {
      kind: 'workflow-run',
      runId: run.id,
      runAttempt: run.run_attempt ?? 1,
      workflowName: run.name ?? workflowPath,
      workflowPath,
      branch,
      ownPullRequest: isOwnBranch(branch) ? (run.pull_requests[0]?.number ?? null) : null,
    },
    dedupeKey: `run:${key}:${run.id}:${run.run_attempt ?? 1}`,
  });
  await enqueueWithinCeiling(dependencies, host, job);
}

/**
 * Whatever its end, a run on one of the App's own branches may complete the
 * verdict of the repository's CI on a fix the App pushed: handed to the
 * follower, which judges it (docs/ci-verdict.md). A failure also starts the
 * next round below, as before.
 */
async function followCi(context: Context<'workflow_run.completed'>, dependencies: AppDependencies) {
  const { workflow_run: run, repository, installation } = context.payload;
  if (!isOwnBranch(run.head_branch ?? '') || run.head_repository?.full_name !== repository.full_name) return;
  await dependencies.ciVerdicts?.runCompleted({
    installationId: installation?.id ?? 0,
    repository: repository.full_name,
    sha: run.head_sha,
  });
}

/** A run has no conversation: the check run on its commit (listed in a pull request's checks too) says what to fix. */
async function reportInvalidConfig(
  context: Context<'workflow_run.completed'>,
  dependencies: AppDependencies,
  message: string,
): Promise<void> {
  const run = context.payload.workflow_run;
  context.log.warn({ runId: run.id }, 'failed run ignored: .github/selfdebug.yml is invalid');
  const { conclusion, output } = renderConfigProblemCheckRun(message, Redactor.none);
  await dependencies.codeHostFor(context).createCheckRun({
    name: 'selfdebug',
    headSha: run.head_sha,
    status: 'completed',
    conclusion,
    output,
  });
}

/** Whether the config enables runs of this workflow (by `names`: its name and path) on `branch`. */
function wanted(workflowRuns: HandlerRepoConfig['workflowRuns'], names: string[], branch: string): boolean {
  return (
    workflowRuns.enabled &&
    (workflowRuns.workflows.length === 0 || names.some((name) => matchesAny(name, workflowRuns.workflows))) &&
    (workflowRuns.branches.length === 0 || matchesAny(branch, workflowRuns.branches))
  );
}

async function skipFork(host: CodeHost, headSha: string): Promise<void> {
  await host.createCheckRun({
    name: 'selfdebug',
    headSha,
    status: 'completed',
    conclusion: 'skipped',
    output: {
      title: 'Skipped: the run comes from a fork',
      summary:
        'selfdebug does not run code from forks near its credentials and cannot push to a fork. ' +
        'A maintainer can push the branch to this repository and re-run the workflow there.',
    },
  });
}

/** The App itself on its own branch, or an actor allowed to start jobs; nowhere to reply to the others. */
async function mayStart(
  context: Context<'workflow_run.completed'>,
  dependencies: AppDependencies,
  host: CodeHost,
  config: HandlerRepoConfig,
  actor: Sender,
): Promise<boolean> {
  const run = context.payload.workflow_run;
  const ownBranch = isOwnBranch(run.head_branch ?? '');
  const appItself = actor.login.toLowerCase() === `${dependencies.handle.toLowerCase()}[bot]`;
  if (appItself && ownBranch) return true;
  const authorization = await authorize(host, actor, dependencies.handle, config.allowedUsers);
  if (authorization.allowed) return true;
  // Nowhere to reply: a run has no conversation, and a bot's runs would get a check run each.
  context.log.info(
    { runId: run.id, actor: actor.login, reason: authorization.reason },
    'failed run ignored: its actor may not start jobs',
  );
  return false;
}
