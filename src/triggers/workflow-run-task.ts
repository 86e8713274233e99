import {
  excerptLog,
  formatExcerpt,
  InfraFailureReader,
  localActionPaths,
  recoverFailingStep,
  reproduce,
} from '../ci-logs/index.js';
import type { CodeHost, WorkflowJob } from '../code-host/code-host.js';
import { type DerivedEnvironment, deriveEnvironment } from '../environment/derive-environment.js';
import type { ToolchainImageMap } from '../environment/toolchain-images.js';
import { GitHubApiError, JobRefusedError } from '../errors/index.js';
import { NotTheCodeError, rerunOnce } from './infra-failure-run.js';
import type { PreparedTask, TaskSettings, TriggerRequest } from './trigger-module.js';

const LOG_EXCERPT_CHARS = 12_000;

/** What the task reads of a failed run's trigger. */
interface FailedRunTrigger {
  runId: number;
  runAttempt: number;
  workflowName: string;
  workflowPath: string;
  branch: string;
}

/** A failed run: the failing step's script (unless a command is given) and a log excerpt. */
export async function workflowRunTask(
  request: TriggerRequest<FailedRunTrigger>,
  host: CodeHost,
  settings: TaskSettings,
): Promise<PreparedTask> {
  const { trigger } = request;
  const [job] = await host.failedJobs(trigger.runId);
  const step = job?.steps.find((candidate) => candidate.conclusion === 'failure');
  const excerpt = job ? await readJobLog(host, job, trigger) : null;
  const found =
    job && step
      ? await commandFor(request, host, settings, {
          job: job.name,
          step: step.name,
          stepNumber: step.number,
          logStep: excerpt?.failingStep ?? null,
        })
      : { command: settings.command, why: null, derived: null };
  const { command, derived } = found;
  if (!command) {
    throw new JobRefusedError(
      `I could not find a script for the failing step${step ? ` "${step.name}"` : ''} of "${trigger.workflowName}". ` +
        `${found.why ?? 'It may be an action rather than a `run:` step.'} Set \`command\` in \`.github/selfdebug.yml\`.`,
    );
  }
  const description = runDescription(trigger, job?.name, step?.name, excerpt);
  return { task: { description, command, setupCommands: settings.setupCommands }, scripts: [], derived };
}

/**
 * The failed job's log excerpt. Streamed: a job log can be hundreds of megabytes, and one pass in
 * bounded memory both excerpts it and classifies it. A log that shows the infrastructure failed
 * (a lost runner, a download that timed out, a rate limit, a full disk) ends the job here, before
 * any sandbox or model: its failed jobs are re-run once, and the report says so. A log that is
 * missing, or shows no failed step, is read with the job's annotations, where GitHub reports a
 * runner that stopped answering.
 */
async function readJobLog(host: CodeHost, job: WorkflowJob, trigger: FailedRunTrigger) {
  const infrastructure = new InfraFailureReader();
  const log = await host.jobLog(job.id).catch((error: unknown) => ({ missing: error }));
  const excerpt =
    'missing' in log
      ? null
      : await excerptLog(log, { maxCharacters: LOG_EXCERPT_CHARS, alsoRead: [infrastructure] });
  const failure =
    infrastructure.verdict() ??
    (infrastructure.sawFailedStep ? null : infrastructure.verdict(await failureAnnotations(host, job)));
  if (failure) {
    const rerun = await rerunOnce(host, trigger);
    throw new NotTheCodeError({ ...failure, job: job.name, workflowName: trigger.workflowName, rerun });
  }
  if ('missing' in log) throw log.missing;
  return excerpt;
}

/** A job's failure annotations; none when GitHub cannot list them (they only add to what the log says). */
async function failureAnnotations(host: CodeHost, job: WorkflowJob): Promise<string[]> {
  try {
    return await host.jobFailureAnnotations(job.id);
  } catch (error) {
    if (error instanceof GitHubApiError) return [];
    throw error;
  }
}

/** The failing job's environment from its workflow file, and the command: the given one, else the step's script. */
async function commandFor(
  request: TriggerRequest<FailedRunTrigger>,
  host: CodeHost,
  settings: TaskSettings,
  query: Parameters<typeof recoverFailingStep>[1],
): Promise<{ command: string | undefined; why: string | null; derived: DerivedEnvironment | null }> {
  const { trigger } = request;
  const ref = request.headSha ?? trigger.branch;
  const file = { path: trigger.workflowPath, ref, images: settings.toolchainImages };
  const { recovered, derived } = await fromWorkflow(host, file, query);
  if (settings.command) return { command: settings.command, why: null, derived };
  const reproduction = recovered ? reproduce(recovered) : null;
  return { command: reproduction?.command ?? undefined, why: reproduction?.note ?? null, derived };
}

/** What failed where, and the log excerpt when there is one. */
function runDescription(
  trigger: FailedRunTrigger,
  job: string | undefined,
  step: string | undefined,
  excerpt: Awaited<ReturnType<typeof excerptLog>> | null,
): string {
  return [
    `The workflow "${trigger.workflowName}" failed on branch ${trigger.branch}` +
      `${job !== undefined ? ` in job "${job}"` : ''}${step !== undefined ? ` at step "${step}"` : ''}.`,
    excerpt && excerpt.lines.length > 0 ? `Log excerpt:\n${formatExcerpt(excerpt)}` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** The failing step and the job's environment, read from the workflow file and its local actions at `ref`. */
async function fromWorkflow(
  host: CodeHost,
  file: { path: string; ref: string; images: ToolchainImageMap | undefined },
  query: Parameters<typeof recoverFailingStep>[1],
) {
  const { ref } = file;
  const workflow = await host.fileContent(file.path, ref);
  if (!workflow) return { recovered: null, derived: null };
  const actions: Record<string, string> = {};
  for (const path of localActionPaths(workflow, query.job)) {
    const action =
      (await host.fileContent(`${path}/action.yml`, ref)) ??
      (await host.fileContent(`${path}/action.yaml`, ref));
    if (action) actions[path] = action;
  }
  return {
    recovered: recoverFailingStep({ workflow, actions }, query),
    derived: deriveEnvironment({ workflow, actions }, query, { images: file.images ?? {} }),
  };
}
