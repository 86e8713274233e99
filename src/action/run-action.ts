import { tmpdir } from 'node:os';
import { GitWorkspaceProvider } from '../adapters/git/index.js';
import { GitHubCodeHost } from '../adapters/github/index.js';
import { readFolderConfig } from '../cli/fix-repo-config.js';
import { tokenOctokit } from '../compose/token-octokit.js';
import { parseSandboxConfig } from '../config/load-config.js';
import { parseModelConfig } from '../config/model-config.js';
import type { Environment } from '../config/read-environment.js';
import { loopLimitsFrom, modelOverrides, sandboxOverrides } from '../config/repo-config.js';
import { planEnvironment } from '../environment/plan-environment.js';
import { runLoop } from '../loop/run-loop.js';
import { loopLimitsSchema } from '../loop/task.js';
import { jobView } from '../report/job-view.js';
import { Redactor } from '../report/redact.js';
import { withSandbox } from '../sandbox/with-sandbox.js';
import type { Workspace } from '../workspace/workspace.js';
import { deliverPullRequest, deliverSuggestions } from './deliver.js';
import { readFailedRun } from './event.js';
import { findFailedStep } from './failed-step.js';
import { isOwnBranch, ROUND_TRAILER, roundsExhausted, untrustedBot } from './guards.js';
import { type ActionInputs, type RunnerContext, readActionEnvironment } from './inputs.js';
import {
  appendSummary,
  budgetNote,
  transcriptMarkdown,
  writeArtifact,
  writeOutputs,
} from './report-files.js';
import { existingToolCache, sandboxProvider, toolCachePath } from './sandbox-choice.js';
import { withToolPath } from './tool-path.js';

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
  try {
    return await debug(read.inputs, read.runner, env, io);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    io.log(
      `::error::selfdebug: ${commandText(new Redactor([read.inputs['api-key'], read.inputs['github-token']]).redact(message))}`,
    );
    return 1;
  }
}

async function debug(
  inputs: ActionInputs,
  runner: RunnerContext,
  env: Environment,
  io: ActionIO,
): Promise<number> {
  const [owner = '', repo = ''] = runner.GITHUB_REPOSITORY.split('/');
  const token = inputs['github-token'];
  const failed = await readFailedRun(runner);
  if ('problem' in failed) throw new ActionFailure(failed.problem);
  const runUrl = `${runner.GITHUB_SERVER_URL}/${runner.GITHUB_REPOSITORY}/actions/runs/${failed.runId}`;
  const folder = await readFolderConfig(runner.GITHUB_WORKSPACE, {});
  const config = folder.config;
  const redactor = new Redactor([inputs['api-key'], token, ...config.secret_env.map((name) => env[name])]);
  const done = async (message: string): Promise<number> => {
    io.log(`selfdebug: ${message}`);
    await appendSummary(runner.GITHUB_STEP_SUMMARY, `### selfdebug\n\n${redactor.redact(message)}\n`);
    return 0;
  };

  const bot = untrustedBot(failed, inputs['trusted-bots']);
  if (bot !== null) return done(bot);

  const checkouts = new GitWorkspaceProvider({
    allowedProtocols: [new URL(runner.GITHUB_SERVER_URL).protocol.replace(':', '')],
    parentDir: runner.RUNNER_TEMP ?? tmpdir(),
  });
  let workspace: Workspace | undefined;
  const checkout = async (): Promise<Workspace> => {
    workspace ??= await checkouts.checkout({
      cloneUrl: `${runner.GITHUB_SERVER_URL}/${runner.GITHUB_REPOSITORY}.git`,
      sha: failed.sha,
      ...(failed.branch === '' ? {} : { ref: failed.branch }),
      token,
    });
    return workspace;
  };
  try {
    if (isOwnBranch(failed.branch)) {
      const rounds = await (await checkout()).countCommits(ROUND_TRAILER);
      const exhausted = roundsExhausted(rounds, config.triggers.workflow_runs.max_rounds);
      if (exhausted !== null) return done(exhausted);
    }

    const octokit = tokenOctokit(token, runner.GITHUB_API_URL);
    const host = new GitHubCodeHost(octokit, { owner, repo });
    let command = inputs.command ?? config.command;
    if (command === undefined) {
      const step = await findFailedStep(octokit, {
        owner,
        repo,
        runId: failed.runId,
        ...(failed.separate || runner.GITHUB_JOB === undefined ? {} : { jobKey: runner.GITHUB_JOB }),
        ...(failed.separate || runner.RUNNER_NAME === undefined ? {} : { runnerName: runner.RUNNER_NAME }),
        workspace: runner.GITHUB_WORKSPACE,
      });
      if ('problem' in step) throw new ActionFailure(step.problem);
      io.log(`selfdebug: debugging the failed step "${step.found.stepName}" of job "${step.found.jobName}".`);
      command = step.found.command;
    }

    const sandboxConfig = parseSandboxConfig(
      {
        ...sandboxOverrides(config),
        kind: inputs.sandbox === 'runner' ? 'local' : 'docker',
        // What the model runs never reaches out, whatever .github/selfdebug.yml asks: the workspace may hold
        // what earlier steps wrote (credentials files), and a pull request may edit that config.
        network: 'none',
        ...(inputs.image === undefined ? {} : { image: inputs.image }),
      },
      'the action inputs and .github/selfdebug.yml',
    );
    const modelConfig = parseModelConfig(
      {
        ...modelOverrides(config),
        apiKey: inputs['api-key'],
        ...(inputs['base-url'] === undefined ? {} : { baseUrl: inputs['base-url'] }),
        ...(inputs.model === undefined ? {} : { model: inputs.model }),
        ...(inputs['input-price'] === undefined ? {} : { inputPricePerMillion: inputs['input-price'] }),
        ...(inputs['output-price'] === undefined ? {} : { outputPricePerMillion: inputs['output-price'] }),
      },
      'the action inputs and .github/selfdebug.yml',
    );
    const limits = loopLimitsSchema.parse({
      ...loopLimitsFrom(
        config,
        inputs['max-attempts'] === undefined ? {} : { maxAttempts: inputs['max-attempts'] },
      ),
      ...(inputs['budget-usd'] === undefined ? {} : { maxCostUsd: inputs['budget-usd'] }),
      commandTimeoutSeconds: sandboxConfig.commandTimeoutSeconds,
    });
    if (
      limits.maxCostUsd > 0 &&
      modelConfig.inputPricePerMillion === 0 &&
      modelConfig.outputPricePerMillion === 0
    ) {
      io.log(
        '::warning::selfdebug: budget-usd has no effect without input-price and output-price (USD per million tokens).',
      );
    }
    if (config.sandbox.network === 'host')
      io.log(
        '::warning::selfdebug: sandbox.network "host" of .github/selfdebug.yml is ignored: the action runs commands with no network.',
      );
    const toolCache = await existingToolCache(runner.RUNNER_TOOL_CACHE);
    const provider = await sandboxProvider(sandboxConfig, toolCache, (message) =>
      io.log(`::warning::selfdebug: ${commandText(message)}`),
    );
    const toolPath = provider.kind === 'docker' ? toolCachePath(env.PATH, toolCache) : [];
    const { createLanguageModel } = await import('../adapters/openai/index.js');
    const model = createLanguageModel(modelConfig);
    const environment = await planEnvironment(config, null, runner.GITHUB_WORKSPACE, {
      derive: false,
      allowedImages: sandboxConfig.allowedImages,
    });
    const jobId = `action-${failed.runId}-${failed.runAttempt}`;
    const opening = {
      jobId,
      workspace: runner.GITHUB_WORKSPACE,
      environment: environment.request,
      onProgress: (line: string) => io.log(redactor.redact(line)),
    };
    return await withSandbox(provider, opening, async (opened) => {
      const sandbox = withToolPath(opened, toolPath);
      const result = await runLoop({
        task: { description: `The command \`${command}\` fails in ${failed.workflowName}.`, command },
        limits,
        model,
        sandbox,
        prices: {
          inputPerMillion: modelConfig.inputPricePerMillion,
          outputPerMillion: modelConfig.outputPricePerMillion,
        },
      });
      const context = {
        jobId,
        repository: runner.GITHUB_REPOSITORY,
        handle: 'selfdebug',
        trigger: {
          kind: 'workflow-run' as const,
          workflowName: failed.workflowName,
          runId: failed.runId,
          runAttempt: failed.runAttempt,
          branch: failed.branch,
          requestedBy: failed.actor.login,
        },
        commit: {
          sha: failed.sha,
          url: `${runner.GITHUB_SERVER_URL}/${runner.GITHUB_REPOSITORY}/commit/${failed.sha}`,
        },
      };
      let view = jobView(context, result.events);
      io.log(`selfdebug: ${result.outcome}: ${redactor.redact(result.reason)}`);
      let delivered: string | null = null;
      if (result.outcome === 'fixed' && inputs.deliver !== 'none') {
        const deliver = inputs.deliver === 'suggestions' ? deliverSuggestions : deliverPullRequest;
        const outcome = await deliver({
          octokit,
          host,
          owner,
          repo,
          token,
          run: failed,
          runUrl,
          config,
          redactor,
          view,
          result,
          sandbox,
          workspace: runner.GITHUB_WORKSPACE,
          checkout,
        });
        delivered = outcome.url;
        for (const note of outcome.notes)
          io.log(`::warning::selfdebug: ${commandText(redactor.redact(note))}`);
        io.log(`selfdebug: delivered the fix: ${delivered}`);
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
      io.log(
        `selfdebug: wrote the patch and transcript to ${artifact}; upload it with actions/upload-artifact.`,
      );
      await writeOutputs(runner.GITHUB_OUTPUT, {
        outcome: result.outcome,
        'artifact-path': artifact,
        'delivered-url': delivered ?? '',
      });
      return 0;
    });
  } finally {
    await workspace?.dispose().catch(() => {});
  }
}

/** Workflow commands end at a newline and treat `%` as an escape. */
function commandText(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
