import { tmpdir } from 'node:os';
import type { ActionCodeHost } from '../code-host/code-host.js';
import { actionCodeHost } from '../compose/action-clients.js';
import { loadSandboxProvider } from '../compose/command-sandbox.js';
import { loadLanguageModel } from '../compose/language-model.js';
import { setupSecrets } from '../compose/setup-extras.js';
import type { Environment } from '../config/read-environment.js';
import type { RepoConfig } from '../config/repo-config.js';
import { planEnvironment } from '../environment/plan-environment.js';
import { type FixPlan, runFixPlan } from '../fix/index.js';
import type { LoopResult } from '../loop/run-loop.js';
import { type JobView, jobView, Redactor } from '../report/index.js';
import type { SandboxProvider } from '../sandbox/sandbox.js';
import { actionRunTask, actionRunTrigger } from '../triggers/index.js';
import type { CopyBackReport } from '../workspace/copy-back.js';
import { isOwnBranch, ROUND_TRAILER } from '../workspace/selfdebug-branches.js';
import type { Workspace } from '../workspace/workspace.js';
import { type ActionSettings, actionSettings } from './action-settings.js';
import { copyBackFor, deliverPullRequest, deliverSuggestions } from './deliver.js';
import { type FailedRun, readFailedRun } from './event.js';
import { findFailedStep } from './failed-step.js';
import { configuredRun } from './fork-run.js';
import { forkRefusal, roundsExhausted, untrustedBot } from './guards.js';
import { type ActionInputs, type RunnerContext, readActionEnvironment } from './inputs.js';
import { lazyCheckout } from './lazy-checkout.js';
import { judgeOwnBranch } from './own-branch-verdict.js';
import {
  appendSummary,
  budgetNote,
  transcriptMarkdown,
  writeArtifact,
  writeOutputs,
} from './report-files.js';
import { existingToolCache, toolCachePath } from './sandbox-choice.js';
import { withToolPath } from './tool-path.js';
import { commandText } from './workflow-command.js';

export interface ActionIO {
  /** The step's log; `::error::` and `::warning::` lines become annotations. */
  log: (line: string) => void;
}

/** Why the step failed, as one `::error::` line saying what to set. */
class ActionFailure extends Error {}

/**
 * The GitHub Action: debugs the failed step of this run (or the given
 * command) in a sandbox on the runner and delivers the fix. Returns the exit
 * code: 1 only when the action could not do its work (a setting to fix, an
 * API refusing); a fix not found is reported, not failed, since the job
 * that failed has already said so.
 */
export async function runAction(env: Environment, io: ActionIO): Promise<number> {
  const read = readActionEnvironment(env);
  if (!read.ok) {
    for (const problem of read.problems) io.log(`::error::selfdebug: ${commandText(problem)}`);
    return 1;
  }
  // Grows as the run learns its secrets (secret_env, the setup variables), so an error is redacted of all.
  const secrets = [read.inputs['api-key'], read.inputs['github-token']];
  try {
    return await debug(read.inputs, read.runner, { env, io, secrets });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    io.log(`::error::selfdebug: ${commandText(new Redactor(secrets).redact(message))}`);
    return 1;
  }
}

/** What the steps of one run share: its inputs and runner, the run that failed, the repository's settings. */
interface ActionRun {
  inputs: ActionInputs;
  runner: RunnerContext;
  env: Environment;
  io: ActionIO;
  failed: FailedRun;
  config: RepoConfig;
  /** Every value to hide, shared with runAction's error handler; `redactor` hides these. */
  secrets: (string | undefined)[];
  redactor: Redactor;
}

/** What the loop left for the report: its result, the files brought back, and the clients. */
interface LoopDone {
  result: LoopResult;
  /** The files the use case brought back into the clean checkout (a pull request's delivery only). */
  copied: CopyBackReport;
  host: ActionCodeHost;
  checkout: () => Promise<Workspace>;
}

async function debug(
  inputs: ActionInputs,
  runner: RunnerContext,
  { env, io, secrets }: Pick<ActionRun, 'env' | 'io' | 'secrets'>,
): Promise<number> {
  const read = await readFailedRun(runner);
  if ('problem' in read) throw new ActionFailure(read.problem);
  const fork = forkRefusal(read, inputs['allow-forks']);
  // Before anything of the fork's is read: no configuration, no sandbox, no model, no push.
  if (fork !== null) return done({ io, runner, redactor: new Redactor([inputs['api-key']]) }, fork);
  // One client for the whole run: the fork's settings and pull request, the failed step, the delivery.
  const host = actionCodeHost({
    token: inputs['github-token'],
    apiUrl: runner.GITHUB_API_URL,
    repository: runner.GITHUB_REPOSITORY,
  });
  const configured = await configuredRun(inputs, { runner, host, failed: read }, io.log);
  secrets.push(...configured.config.secret_env.map((name) => env[name]));
  const run: ActionRun = { ...configured, runner, env, io, secrets, redactor: new Redactor(secrets) };
  const { config, failed } = run;
  const bot = untrustedBot(failed, inputs['trusted-bots']);
  if (bot !== null) return done(run, bot);
  const clone = lazyCheckout(runner, failed, inputs['github-token'], env);
  try {
    // A fork's branch is never one of the action's own, whatever it is named.
    if (failed.fork === null && isOwnBranch(failed.branch)) {
      // Its own pull request's CI: the verdict is recorded first; only a failure of this run goes on.
      const stop = await judgeOwnBranch({ ...run, host });
      if (stop !== null) return done(run, stop);
      const rounds = await (await clone.checkout()).countCommits(ROUND_TRAILER);
      const exhausted = roundsExhausted(rounds, config.triggers.workflow_runs.max_rounds);
      if (exhausted !== null) return done(run, exhausted);
    }
    return await debugCommand(run, host, clone.checkout);
  } finally {
    await clone.dispose();
  }
}

/** Ends a run with nothing to debug: the reason in the log and the job summary. */
async function done(run: Pick<ActionRun, 'io' | 'runner' | 'redactor'>, message: string): Promise<number> {
  run.io.log(`selfdebug: ${message}`);
  await appendSummary(run.runner.GITHUB_STEP_SUMMARY, `### selfdebug\n\n${run.redactor.redact(message)}\n`);
  return 0;
}

/** Runs the loop on the command (the input, the config's, or the failed step's) in the sandbox, then reports. */
async function debugCommand(
  run: ActionRun,
  host: ActionCodeHost,
  checkout: () => Promise<Workspace>,
): Promise<number> {
  const { inputs, runner, config, io } = run;
  const settings = settle(run);
  const given = inputs.command ?? config.command;
  const { command, derived } =
    given === undefined ? await failedStep(run, host, settings) : { command: given, derived: null };
  const sandboxes = await sandboxFor(run, settings);
  const model = await loadLanguageModel(settings.model);
  // In the failed job the workspace and the tool cache hold what it set up; a separate workflow_run
  // workflow starts from a bare checkout, so it derives the failed job's environment as the App does.
  const environment = await planEnvironment(config, derived, runner.GITHUB_WORKSPACE, {
    derive: run.failed.separate,
    allowedImages: settings.sandbox.allowedImages,
  });
  const plan: FixPlan = {
    jobId: jobIdOf(run.failed),
    task: actionRunTask(actionRunTrigger(run.failed), command),
    limits: settings.limits,
    prices: settings.prices,
    workspace: runner.GITHUB_WORKSPACE,
    environment: run.failed.cacheScope
      ? { ...environment.request, cacheScope: run.failed.cacheScope }
      : environment.request,
    ...copyBackFor(run.inputs.deliver, run.failed, checkout),
  };
  return await runFixPlan(plan, {
    sandboxes,
    model,
    onProgress: (line: string) => io.log(run.redactor.redact(line)),
    deliver: ({ loop, copied }) => report(run, { result: loop, copied, host, checkout }),
  });
}

/** The run's settings; their setup variables join the secrets the redactor hides from here on. */
function settle(run: ActionRun): ActionSettings {
  const warn = (message: string) => run.io.log(`::warning::selfdebug: ${message}`);
  const settings = actionSettings(run.inputs, run.config, warn, run.env);
  run.secrets.push(...setupSecrets(settings.setupExtras));
  run.redactor = new Redactor(run.secrets);
  return settings;
}

/**
 * The sandbox the inputs chose. `runner` says its risk as an annotation (seen on the run's page, not only
 * in the raw log); `docker` mounts the tool cache read-only, and its commands find the job's tools there first.
 */
async function sandboxFor(
  run: ActionRun,
  { sandbox: config, setupExtras }: ActionSettings,
): Promise<SandboxProvider> {
  const toolCache = await existingToolCache(run.runner.RUNNER_TOOL_CACHE);
  const provider = await loadSandboxProvider(config, {
    setupExtras,
    host: run.env,
    backToDocker: 'use `sandbox: docker` (the default)',
    warn: (message) => run.io.log(`::warning::selfdebug: ${commandText(message)}`),
    readOnlyMounts: toolCache === null ? [] : [toolCache],
  });
  const toolPath = provider.kind === 'docker' ? toolCachePath(run.env.PATH, toolCache) : [];
  return {
    kind: provider.kind,
    open: async (request) => withToolPath(await provider.open(request), toolPath),
  };
}

/** The step that failed in this run's job (its command and derived environment), found through the jobs API and the workflow file. */
async function failedStep(run: ActionRun, host: ActionCodeHost, settings: ActionSettings) {
  const { runner, failed } = run;
  const step = await findFailedStep(host, {
    runId: failed.runId,
    ...(failed.separate || runner.GITHUB_JOB === undefined ? {} : { jobKey: runner.GITHUB_JOB }),
    ...(failed.separate || runner.RUNNER_NAME === undefined ? {} : { runnerName: runner.RUNNER_NAME }),
    workspace: runner.GITHUB_WORKSPACE,
    images: settings.sandbox.toolchainImages,
  });
  if ('problem' in step) throw new ActionFailure(step.problem);
  run.io.log(`selfdebug: debugging the failed step "${step.found.stepName}" of job "${step.found.jobName}".`);
  return step.found;
}

function jobIdOf(failed: FailedRun): string {
  return `action-${failed.runId}-${failed.runAttempt}`;
}

/** After the loop: the fix delivered as the inputs ask, then the job summary, the artifact and the outputs. */
async function report(run: ActionRun, loop: LoopDone): Promise<number> {
  const { inputs, runner, io, redactor } = run;
  const { result } = loop;
  const context = viewContext(run);
  let view = jobView(context, result.events);
  io.log(`selfdebug: ${result.outcome}: ${redactor.redact(result.reason)}`);
  let delivered: string | null = null;
  if (result.outcome === 'fixed' && inputs.deliver !== 'none') {
    delivered = await deliverFix(run, view, loop);
    view = jobView(
      { ...context, pullRequestUrl: inputs.deliver === 'pull-request' ? delivered : null },
      result.events,
    );
  }
  const transcript = transcriptMarkdown(view, redactor);
  const note = result.outcome === 'budget-exhausted' ? budgetNote(result.reason, redactor) : '';
  await appendSummary(runner.GITHUB_STEP_SUMMARY, `${note}${transcript}`);
  const artifact = await writeArtifact(runner.RUNNER_TEMP ?? tmpdir(), {
    patch: redactor.redact(result.diff),
    transcript,
  });
  io.log(`selfdebug: wrote the patch and transcript to ${artifact}; upload it with actions/upload-artifact.`);
  await writeOutputs(runner.GITHUB_OUTPUT, {
    outcome: result.outcome,
    'artifact-path': artifact,
    'delivered-url': delivered ?? '',
  });
  return 0;
}

/** What the report says of the job: this run, the failed run that triggered it, and its commit. */
function viewContext(run: ActionRun) {
  const { runner, failed } = run;
  return {
    jobId: jobIdOf(failed),
    repository: runner.GITHUB_REPOSITORY,
    handle: 'selfdebug',
    trigger: actionRunTrigger(failed),
    requestedBy: failed.actor.login,
    commit: {
      sha: failed.sha,
      url: `${runner.GITHUB_SERVER_URL}/${runner.GITHUB_REPOSITORY}/commit/${failed.sha}`,
    },
  };
}

/** Delivers the fix as a pull request or as suggestions; returns where it went. */
async function deliverFix(run: ActionRun, view: JobView, loop: LoopDone): Promise<string> {
  const { inputs, runner, failed, io, redactor } = run;
  const deliver = inputs.deliver === 'suggestions' ? deliverSuggestions : deliverPullRequest;
  const outcome = await deliver({
    host: loop.host,
    token: inputs['github-token'],
    jobId: jobIdOf(failed),
    run: failed,
    runUrl: `${runner.GITHUB_SERVER_URL}/${runner.GITHUB_REPOSITORY}/actions/runs/${failed.runId}`,
    config: run.config,
    redactor,
    view,
    result: loop.result,
    copied: loop.copied,
    workspace: runner.GITHUB_WORKSPACE,
    checkout: loop.checkout,
  });
  for (const note of outcome.notes) io.log(`::warning::selfdebug: ${commandText(redactor.redact(note))}`);
  io.log(`selfdebug: delivered the fix: ${outcome.url}`);
  return outcome.url;
}
