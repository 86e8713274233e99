import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CodeHost } from '../code-host/code-host.js';
import type { AppConfig } from '../config/app-config.js';
import { type ModelConfig, modelConfigSchema } from '../config/model-config.js';
import {
  applyOperatorCeilings,
  loopLimitsFrom,
  modelOverrides,
  parseRepoConfig,
  type RepoConfig,
  sandboxOverrides,
} from '../config/repo-config.js';
import { reportSettings } from '../config/repo-config-mappers.js';
import { type SandboxConfig, sandboxConfigSchema } from '../config/sandbox-config.js';
import { planEnvironment } from '../environment/plan-environment.js';
import { JobCancelledError, JobRefusedError } from '../errors/job-errors.js';
import { SelfdebugError } from '../errors/selfdebug-error.js';
import { type LoopResult, runLoop } from '../loop/run-loop.js';
import { loopLimitsSchema } from '../loop/task.js';
import type { LanguageModel } from '../model/language-model.js';
import type { JobRequest } from '../queue/job-request.js';
import {
  codeBlock,
  Redactor,
  redactingLogger,
  renderCommitMessage,
  renderConfigProblemCheckRun,
  renderPullRequestBody,
  renderPullRequestTitle,
} from '../report/index.js';
import type { JobView } from '../report/job-view.js';
import type { SandboxProvider } from '../sandbox/sandbox.js';
import { withSandbox } from '../sandbox/with-sandbox.js';
import { workspacePath } from '../sandbox/workspace-path.js';
import type { Logger } from '../util/logger.js';
import { copyBack, writeInside } from '../workspace/copy-back.js';
import type { Workspace, WorkspaceProvider } from '../workspace/workspace.js';
import { buildTask, type PreparedTask } from './build-task.js';
import { JobReporter } from './job-reporter.js';
import { type JobTarget, resolveTarget } from './resolve-target.js';

export interface JobRunnerDependencies {
  codeHostFor(request: JobRequest): Promise<CodeHost>;
  /** A fresh installation token for git; it never enters the sandbox. */
  tokenFor(request: JobRequest): Promise<string>;
  workspaces: WorkspaceProvider;
  sandboxProviderFor(config: SandboxConfig): SandboxProvider;
  modelFor(config: ModelConfig): LanguageModel;
  sandboxConfig: SandboxConfig;
  modelConfig: ModelConfig;
  appConfig: AppConfig;
  logger: Logger;
  environment?: Record<string, string | undefined>;
}

const ROUND_TRAILER = 'Selfdebug-Round: workflow-run';

/** What the job's history keeps: the report's view (null when nothing ran), and why it stopped early. */
export interface RunJobResult {
  view: JobView | null;
  problem: { kind: 'refused' | 'failed'; message: string } | null;
}

/**
 * Sequences one job: configuration → target → task → workspace → sandbox →
 * loop → delivery (commit, push, pull request) → report. The only place
 * that orders these I/O steps; every step talks to a port.
 */
export async function runJob(
  request: JobRequest,
  signal: AbortSignal,
  dependencies: JobRunnerDependencies,
): Promise<RunJobResult> {
  const host = await dependencies.codeHostFor(request);
  const reportTo = initialReportTo(request);
  const baseRedactor = new Redactor([dependencies.modelConfig.apiKey]);
  const config = await loadConfig(host);
  if (!config.ok) {
    if (reportTo !== null) await host.createComment(reportTo, baseRedactor.redact(config.message));
    else if (request.headSha !== null) {
      // A failed run with no pull request to answer in: the run's commit gets a check run saying what to fix.
      const { conclusion, output } = renderConfigProblemCheckRun(config.message, baseRedactor);
      await host.createCheckRun({
        name: 'selfdebug',
        headSha: request.headSha,
        status: 'completed',
        conclusion,
        output,
      });
    }
    dependencies.logger.warn({ job: request.id }, 'job skipped: invalid .github/selfdebug.yml');
    return { view: null, problem: { kind: 'refused', message: config.message } };
  }
  const { config: repoConfig, notes } = applyOperatorCeilings(config.config, dependencies.appConfig);
  const environment = dependencies.environment ?? process.env;
  const token = await dependencies.tokenFor(request);
  const redactor = new Redactor([
    token,
    dependencies.modelConfig.apiKey,
    ...repoConfig.secret_env.map((name) => environment[name]),
  ]);
  // From here on the job's log lines carry command output and error messages: they pass the redactor too.
  const logger = redactingLogger(dependencies.logger, redactor);
  // Notes (a setting the operator's ceiling changed) go in the status comment, so a job's comments stay bounded.
  const reporter = new JobReporter(request, host, redactor, logger, reportTo, dependencies.appConfig.handle, {
    ...reportSettings(repoConfig),
    notes,
  });

  // The clone, kept so that its folder is removed however the job ends (even while it is still running).
  let cloned: Promise<Workspace | null> | null = null;
  let target: JobTarget | null = null;
  try {
    target = await resolveTarget(request, host);
    const prepared = await buildTask(request, host, { command: repoConfig.command, setup: repoConfig.setup });
    reporter.start(target.headSha);

    const jobTarget = target;
    // The checkout runs while the container starts; the sandbox copies it in once both are ready.
    const clone = dependencies.workspaces.checkout({
      cloneUrl: request.repository.cloneUrl,
      sha: target.headSha,
      ref: target.ref,
      token,
    });
    cloned = clone.catch(() => null);
    const checkout = clone.then(async (checkedOut) => {
      await prepareCheckout(
        checkedOut,
        request,
        jobTarget,
        prepared,
        repoConfig,
        dependencies.appConfig.handle,
      );
      return checkedOut;
    });
    // Awaited by the sandbox and below; this only keeps an early failure from counting as unhandled.
    checkout.catch(() => {});

    const sandboxConfig = jobSandboxConfig(dependencies.sandboxConfig, repoConfig, request);
    const environment = checkout.then(
      async (checkedOut) =>
        (
          await planEnvironment(repoConfig, prepared.derived, checkedOut.dir, {
            derive: dependencies.appConfig.deriveEnvironment,
            allowedImages: sandboxConfig.allowedImages,
          })
        ).request,
    );
    // Awaited by the sandbox (a provider may not ask for it); this only keeps an early failure from counting as unhandled.
    environment.catch(() => {});
    const delivery = await withSandbox(
      dependencies.sandboxProviderFor(sandboxConfig),
      {
        jobId: request.id,
        workspace: checkout.then((checkedOut) => checkedOut.dir),
        environment,
        onProgress: (line) =>
          logger.info({ job: request.id, environment: line }, 'preparing the environment'),
        signal,
      },
      async (sandbox) => {
        const loop = await runLoop({
          task: prepared.task,
          limits: loopLimitsSchema.parse(loopLimitsFrom(repoConfig, request.options)),
          model: dependencies.modelFor(jobModelConfig(dependencies.modelConfig, repoConfig, request)),
          prices: {
            inputPerMillion: dependencies.modelConfig.inputPricePerMillion,
            outputPerMillion: dependencies.modelConfig.outputPricePerMillion,
          },
          sandbox,
          emit: reporter.onEvent,
          signal,
          mode: loopMode(request.trigger),
        });
        // Only the files the loop edited come back: never .git, build output or anything else the command wrote.
        const checkedOut = await checkout;
        const copied = await copyBack(sandbox, loop.changedFiles, checkedOut.dir);
        if (copied.refused.length > 0) {
          // A fix missing one of its files is not the fix that passed: nothing is pushed, and the report says why.
          const refused = copied.refused.map((entry) => `${entry.path} (${entry.reason})`).join('; ');
          logger.warn({ job: request.id, refused }, 'files of the fix could not be copied back');
          return {
            pullRequestUrl: null,
            fixSha: null,
            deliveryError: `selfdebug did not push the fix: some of its files could not be copied back safely: ${refused}`,
          };
        }
        // Pushed and opened before the container is removed, which takes longer than a push.
        return deliver(
          request,
          loop,
          prepared,
          jobTarget,
          checkedOut,
          host,
          reporter,
          repoConfig,
          dependencies,
          token,
          redactor,
        );
      },
    );
    await reporter.finish(delivery);
    return { view: reporter.view(), problem: null };
  } catch (error) {
    if (error instanceof JobRefusedError) {
      await reporter.refuse(error.message, target?.headSha ?? request.headSha);
      return { view: reporter.view(), problem: { kind: 'refused', message: error.message } };
    }
    if (error instanceof JobCancelledError && target !== null) {
      await reporter.cancel(error.message);
      return { view: reporter.view(), problem: null };
    }
    const message = error instanceof SelfdebugError ? error.message : `Unexpected error: ${String(error)}`;
    logger.error({ job: request.id, error: String(error) }, 'job failed');
    await reporter.refuse(
      `The job failed before it could finish: ${message}`,
      target?.headSha ?? request.headSha,
    );
    if (!(error instanceof SelfdebugError)) throw error;
    return { view: reporter.view(), problem: { kind: 'failed', message } };
  } finally {
    await (await cloned)?.dispose().catch(() => {});
  }
}

/**
 * What a fresh checkout needs before the sandbox copies it: the round cap
 * on the App's own branch (checked here, where the commits are), and the
 * issue's scripts written into it.
 */
async function prepareCheckout(
  checkout: Workspace,
  request: JobRequest,
  target: JobTarget,
  prepared: PreparedTask,
  repoConfig: RepoConfig,
  handle: string,
): Promise<void> {
  if (request.trigger.kind === 'workflow-run' && target.ownBranch) {
    const rounds = await checkout.countCommits(ROUND_TRAILER);
    const limit = repoConfig.triggers.workflow_runs.max_rounds;
    if (rounds >= limit) {
      throw new JobRefusedError(
        `selfdebug already pushed ${rounds} automatic ${rounds === 1 ? 'fix' : 'fixes'} to this branch after failed runs ` +
          `(the limit is ${limit}, \`triggers.workflow_runs.max_rounds\`); it stops here so it can never loop. ` +
          `Mention @${handle} to continue by hand.`,
      );
    }
  }
  for (const script of prepared.scripts) {
    // The repository may hold a link where the scripts go: never written through.
    await writeInside(checkout.dir, workspacePath(script.path), Buffer.from(script.content), 0o644);
  }
}

interface Delivery {
  pullRequestUrl: string | null;
  deliveryError: string | null;
  fixSha: string | null;
}

async function deliver(
  request: JobRequest,
  result: LoopResult,
  prepared: PreparedTask,
  target: JobTarget,
  workspace: Workspace,
  host: CodeHost,
  reporter: JobReporter,
  config: RepoConfig,
  dependencies: JobRunnerDependencies,
  token: string,
  redactor: Redactor,
): Promise<Delivery> {
  const none: Delivery = { pullRequestUrl: null, deliveryError: null, fixSha: null };
  const fixed = result.outcome === 'fixed' && result.changedFiles.length > 0;
  if (prepared.scripts.length > 0) {
    // An issue's own script has no home in the repository: the fix is posted, not pushed.
    if (fixed && target.reportTo !== null)
      await postFixedScripts(host, target.reportTo, result, workspace, redactor);
    return none;
  }
  const pushAnyway = !fixed && config.pull_request.push_branch_on_failure && result.changedFiles.length > 0;
  if (!fixed && !pushAnyway) return none;
  try {
    await workspace.createBranch(target.workBranch);
    const trailers = [`Selfdebug-Job: ${request.id}`];
    if (request.trigger.kind === 'workflow-run') trailers.push(ROUND_TRAILER);
    const summary = result.reflection?.summary ?? `fix ${prepared.task.command}`;
    const sha = await workspace.commit(
      renderCommitMessage(summary, trailers, redactor, config.pull_request.title_prefix),
      { name: dependencies.appConfig.commitName, email: dependencies.appConfig.commitEmail },
      result.changedFiles,
    );
    if (!sha) return none;
    await workspace.push(target.workBranch, token);
    if (!fixed) return { ...none, fixSha: sha };

    // The pull request links to the status and attempt comments, which may still be on their way.
    await reporter.caughtUp();
    const view = reporter.view();
    const existing = target.existingPull ?? (await host.findPullRequest(target.workBranch))?.number ?? null;
    if (existing !== null) {
      const pull = await host.pullRequest(existing);
      await reporter.moveTo(existing);
      return { pullRequestUrl: pull.url, deliveryError: null, fixSha: sha };
    }
    const pull = await host.createPullRequest({
      title: renderPullRequestTitle(view, redactor, config.pull_request.title_prefix),
      body: renderPullRequestBody(view, redactor),
      head: target.workBranch,
      base: target.baseBranch,
      draft: config.pull_request.draft,
    });
    if (config.pull_request.labels.length > 0)
      await host.addLabels(pull.number, [...config.pull_request.labels]);
    await reporter.moveTo(pull.number);
    return { pullRequestUrl: pull.url, deliveryError: null, fixSha: sha };
  } catch (error) {
    const message = error instanceof SelfdebugError ? error.message : String(error);
    dependencies.logger.warn(
      { job: request.id, error: redactor.redact(message) },
      'could not deliver the fix',
    );
    return { ...none, deliveryError: message };
  }
}

async function postFixedScripts(
  host: CodeHost,
  issue: number,
  result: LoopResult,
  workspace: Workspace,
  redactor: Redactor,
) {
  const parts = ['The fixed script, verified in the sandbox:'];
  for (const path of result.changedFiles) {
    const content = await readFile(join(workspace.dir, workspacePath(path)), 'utf8');
    parts.push(
      `\`${path}\`\n${codeBlock(content, path.endsWith('.py') ? 'python' : path.endsWith('.js') ? 'js' : 'sh')}`,
    );
  }
  await host.createComment(issue, redactor.redact(parts.join('\n\n')));
}

async function loadConfig(
  host: CodeHost,
): Promise<{ ok: true; config: RepoConfig } | { ok: false; message: string }> {
  try {
    return parseRepoConfig(await host.repoConfigFile());
  } catch (error) {
    if (error instanceof SelfdebugError && error.code === 'config')
      return { ok: false, message: error.message };
    throw error;
  }
}

function jobSandboxConfig(base: SandboxConfig, config: RepoConfig, request: JobRequest): SandboxConfig {
  return sandboxConfigSchema.parse({
    ...base,
    ...sandboxOverrides(config),
    ...(request.options.timeoutSeconds ? { commandTimeoutSeconds: request.options.timeoutSeconds } : {}),
  });
}

function jobModelConfig(base: ModelConfig, config: RepoConfig, request: JobRequest): ModelConfig {
  return modelConfigSchema.parse({
    ...base,
    ...modelOverrides(config),
    ...(request.options.model ? { model: request.options.model } : {}),
  });
}

function initialReportTo(request: JobRequest): number | null {
  const { trigger } = request;
  if (trigger.kind === 'mention') return trigger.issueNumber;
  if (trigger.kind === 'review') return trigger.pullNumber;
  return trigger.ownPullRequest;
}

export const newJobId = (): string => randomUUID();

/** A review asks for changes to a fix that may already pass; `explain` changes nothing. */
function loopMode(trigger: JobRequest['trigger']): 'fix' | 'explain' | 'revise' {
  if (trigger.kind === 'review') return 'revise';
  return trigger.kind === 'mention' && trigger.command === 'explain' ? 'explain' : 'fix';
}
