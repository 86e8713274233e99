import { randomUUID } from 'node:crypto';
import type { CodeHost } from '../code-host/code-host.js';
import type { AppConfig } from '../config/app-config.js';
import type { ModelConfig } from '../config/model-config.js';
import { type RepoConfig, readRepoConfig } from '../config/repo-config.js';
import type { SandboxConfig } from '../config/sandbox-config.js';
import { appScope } from '../environment/cache-scope.js';
import { planEnvironment } from '../environment/plan-environment.js';
import { JobCancelledError, JobRefusedError, SelfdebugError } from '../errors/index.js';
import { type FixPlan, type FixRan, runFixPlan } from '../fix/index.js';
import type { LanguageModel } from '../model/language-model.js';
import type { JobRequest } from '../queue/job-request.js';
import type { JobView } from '../report/index.js';
import { Redactor, redactingLogger, renderInfraFailure, setupFailureMarkdown } from '../report/index.js';
import type { SandboxProvider } from '../sandbox/sandbox.js';
import { EnvironmentSetupError } from '../sandbox/setup-error.js';
import { NotTheCodeError, type PreparedTask } from '../triggers/index.js';
import type { Logger } from '../util/logger.js';
import type { Workspace, WorkspaceProvider } from '../workspace/workspace.js';
import { buildTask } from './build-task.js';
import { jobTrailers, planDelivery, pullRequestText } from './delivery-plan.js';
import { type Delivery, executeDelivery } from './execute-delivery.js';
import { fixedScripts } from './fix-files.js';
import type { JobEvents } from './job-events.js';
import { JobReporter } from './job-reporter.js';
import { type JobSettings, jobSettings } from './job-settings.js';
import { prepareCheckout } from './prepare-checkout.js';
import { reportConfigProblem } from './report-config-problem.js';
import { type ReportTarget, reportTargetOf } from './report-target.js';
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
  /** Where a repository's `secret_env` values are looked up (the composition root's environment), for the redactor. */
  environment: Record<string, string | undefined>;
  /** Secrets of the operator's own (registry passwords) that a report must never show. */
  operatorSecrets?: readonly string[];
}

/** What the job's history keeps: the report's view (null when nothing ran), and why it stopped early. */
export interface RunJobResult {
  view: JobView | null;
  problem: { kind: 'refused' | 'failed'; message: string } | null;
}

/** One job as its steps share it: read and worked out once, at the start. */
interface Job {
  request: JobRequest;
  signal: AbortSignal;
  dependencies: JobRunnerDependencies;
  host: CodeHost;
  settings: JobSettings;
  token: string;
  redactor: Redactor;
  /** Redacting: from here on log lines carry command output and error messages. */
  logger: Logger;
  report: JobEvents;
}

/**
 * Sequences one job: configuration → target → task → workspace → sandbox →
 * loop → delivery plan → delivery → report. The only place that orders
 * these I/O steps; every step talks to a port, and what to deliver is
 * decided by planDelivery before anything is written.
 */
export async function runJob(
  request: JobRequest,
  signal: AbortSignal,
  dependencies: JobRunnerDependencies,
): Promise<RunJobResult> {
  const host = await dependencies.codeHostFor(request);
  // Worked out once: the config problem, the reporter and the delivery all speak where it says.
  const reportTarget = reportTargetOf(request);
  const config = await readRepoConfig(host);
  if (!config.ok) {
    await reportConfigProblem(reportTarget, host, config.message, dependencies.modelConfig.apiKey);
    dependencies.logger.warn({ job: request.id }, 'job skipped: invalid .github/selfdebug.yml');
    return { view: null, problem: { kind: 'refused', message: config.message } };
  }
  const job = await openJob({ request, signal, dependencies, host, reportTarget }, config.config);
  const { settings, report } = job;

  // The clone, kept so that its folder is removed however the job ends (even while it is still running).
  let cloned: Promise<Workspace | null> | null = null;
  let target: JobTarget | null = null;
  try {
    target = await resolveTarget(request, host, reportTarget.issueNumber);
    const { command, setup } = settings.repo;
    const prepared = await buildTask(request, host, {
      command,
      setup,
      toolchainImages: settings.sandbox.toolchainImages,
    });
    report.started(target.headSha);
    const checkout = startCheckout(job, target, prepared);
    cloned = checkout.catch(() => null);
    const delivery = await runInSandbox(job, target, prepared, checkout);
    return { view: await report.finished(delivery), problem: null };
  } catch (error) {
    return endEarly(job, error, target);
  } finally {
    await (await cloned)?.dispose().catch(() => {});
  }
}

/** What a job starts from: its request, its ports and where it reports. */
interface JobStart {
  request: JobRequest;
  signal: AbortSignal;
  dependencies: JobRunnerDependencies;
  host: CodeHost;
  reportTarget: ReportTarget;
}

/** Everything a job works out once, before its first step: settings, token, redactor, logger and report. */
async function openJob(start: JobStart, config: RepoConfig): Promise<Job> {
  const { request, signal, dependencies, host } = start;
  const settings = jobSettings(request, config, dependencies);
  const token = await dependencies.tokenFor(request);
  const redactor = new Redactor([token, ...settings.secrets]);
  const logger = redactingLogger(dependencies.logger, redactor);
  const report = new JobReporter({
    request,
    host,
    redactor,
    logger,
    reportTo: start.reportTarget.issueNumber,
    handle: dependencies.appConfig.handle,
    settings: settings.report,
  });
  return { request, signal, dependencies, host, settings, token, redactor, logger, report };
}

/** The checkout runs while the container starts; the sandbox copies it in once both are ready. */
function startCheckout(job: Job, target: JobTarget, prepared: PreparedTask): Promise<Workspace> {
  const { request, dependencies, settings } = job;
  const checkout = dependencies.workspaces
    .checkout({
      cloneUrl: request.repository.cloneUrl,
      sha: target.headSha,
      ref: target.ref,
      token: job.token,
    })
    .then(async (workspace) => {
      const maxRounds = settings.repo.triggers.workflow_runs.max_rounds;
      await prepareCheckout(workspace, {
        request,
        target,
        prepared,
        maxRounds,
        handle: dependencies.appConfig.handle,
      });
      return workspace;
    });
  // Awaited by the sandbox and later; this only keeps an early failure from counting as unhandled.
  checkout.catch(() => {});
  return checkout;
}

/** The job's fix as a plan, run by the one use case; the delivery runs while the sandbox is still open. */
function runInSandbox(job: Job, target: JobTarget, prepared: PreparedTask, checkout: Promise<Workspace>) {
  const { request, dependencies, settings, signal } = job;
  const plan: FixPlan = {
    jobId: request.id,
    task: prepared.task,
    limits: settings.limits,
    prices: settings.prices,
    mode: settings.mode,
    environment: environmentFor(job, target, prepared, checkout),
    workspace: checkout.then((workspace) => workspace.dir),
    // Whatever the outcome: the delivery plan decides what a partial fix is worth.
    copyBack: 'always',
  };
  return runFixPlan(plan, {
    sandboxes: dependencies.sandboxProviderFor(settings.sandbox),
    model: dependencies.modelFor(settings.model),
    emit: job.report.onEvent,
    onProgress: (line: string) =>
      job.logger.info({ job: request.id, environment: line }, 'preparing the environment'),
    signal,
    // Pushed and opened before the container is removed, which takes longer than a push.
    deliver: async (ran) => deliver(job, { ...ran, target, prepared, workspace: await checkout }),
  });
}

/**
 * The environment the sandbox prepares, planned from the checkout once it is
 * there, in the cache scope of the installation, the repository and the
 * branch the job reads (a review round on the App's own branch is that branch).
 */
function environmentFor(job: Job, target: JobTarget, prepared: PreparedTask, checkout: Promise<Workspace>) {
  const { settings, dependencies, request } = job;
  const { repository } = request;
  const cacheScope =
    repository.id === undefined
      ? undefined
      : appScope({
          installationId: request.installationId,
          repositoryId: repository.id,
          branch: target.ref,
          defaultBranch: repository.defaultBranch,
        });
  const environment = checkout.then(async (workspace) => {
    const plan = await planEnvironment(settings.repo, prepared.derived, workspace.dir, {
      derive: dependencies.appConfig.deriveEnvironment,
      allowedImages: settings.sandbox.allowedImages,
    });
    return cacheScope ? { ...plan.request, cacheScope } : plan.request;
  });
  // Awaited by the sandbox (a provider may not ask for it); this only keeps an early failure from counting as unhandled.
  environment.catch(() => {});
  return environment;
}

/** Gathers what the decision reads, plans the delivery and carries it out. */
async function deliver(
  job: Job,
  ran: FixRan & { target: JobTarget; prepared: PreparedTask; workspace: Workspace },
): Promise<Delivery> {
  const { request, settings, logger, redactor } = job;
  const { loop, workspace } = ran;
  const { appConfig } = job.dependencies;
  const { refused } = ran.copied;
  if (refused.length > 0) {
    const paths = refused.map((entry) => `${entry.path} (${entry.reason})`).join('; ');
    logger.warn({ job: request.id, refused: paths }, 'files of the fix could not be copied back');
  }
  const plan = planDelivery({
    loop,
    fixes: ran.prepared.task.command,
    trailers: jobTrailers(request),
    scripts: ran.prepared.scripts.length > 0 ? await fixedScripts(ran.files, loop.changedFiles) : null,
    refused,
    partialFix: 'withhold',
    target: ran.target,
    settings: settings.repo.pull_request,
    author: { name: appConfig.commitName, email: appConfig.commitEmail },
    redactor,
  });
  return executeDelivery(plan, {
    host: job.host,
    workspace,
    token: job.token,
    // The body links to every comment the report shows: written once they are posted, after the push.
    pullRequestText: async (pull) => pullRequestText(pull, await job.report.settled(), redactor),
    movedTo: (pullNumber) => job.report.movedTo(pullNumber),
    logger,
    redactor,
    jobId: request.id,
  });
}

/** A job that ended before its report could finish it: a refusal, a cancellation, or a failure. */
async function endEarly(job: Job, error: unknown, target: JobTarget | null): Promise<RunJobResult> {
  const { request, report } = job;
  const headSha = target?.headSha ?? request.headSha;
  if (error instanceof NotTheCodeError) {
    const { title, message } = renderInfraFailure(error.notice, job.redactor);
    return {
      view: await report.refused(message, headSha, title),
      problem: { kind: 'refused', message: error.message },
    };
  }
  if (error instanceof JobRefusedError) {
    return {
      view: await report.refused(error.message, headSha),
      problem: { kind: 'refused', message: error.message },
    };
  }
  if (error instanceof JobCancelledError && target !== null) {
    return { view: await report.cancelled(error.message), problem: null };
  }
  const message = error instanceof SelfdebugError ? error.message : `Unexpected error: ${String(error)}`;
  job.logger.error({ job: request.id, error: String(error) }, 'job failed');
  // A failed setup step shows its output and hosts as Markdown; the plain message would run its lines together.
  const shown = error instanceof EnvironmentSetupError ? setupFailureMarkdown(error) : message;
  const view = await report.refused(`The job failed before it could finish: ${shown}`, headSha);
  if (!(error instanceof SelfdebugError)) throw error;
  return { view, problem: { kind: 'failed', message } };
}

export const newJobId = (): string => randomUUID();
