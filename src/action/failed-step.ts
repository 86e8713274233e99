import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { recoverFailingStep } from '../ci-logs/index.js';
import type { ActionCodeHost, RunJob } from '../code-host/code-host.js';
import { type DerivedEnvironment, deriveEnvironment } from '../environment/derive-environment.js';
import type { ToolchainImageMap } from '../environment/toolchain-images.js';

interface FailedStep {
  command: string;
  jobName: string;
  stepName: string;
  workflowPath: string;
  /** The failed job's environment, derived from the workflow file as the App derives it. */
  derived: DerivedEnvironment | null;
}

export interface FailedStepQuery {
  runId: number;
  /** GITHUB_JOB of the step running the action (its job's id in the workflow), when in that job. */
  jobKey?: string;
  /** RUNNER_NAME: tells the current job apart from other matrix jobs that failed at the same time. */
  runnerName?: string;
  workspace: string;
  /** SELFDEBUG_TOOLCHAIN_IMAGES, for the derived image. */
  images?: ToolchainImageMap;
}

export type FailedStepResult = { found: FailedStep } | { problem: string };

const SET_COMMAND = 'set the `command` input to the command that fails';

/**
 * The command of the step that failed, for when no `command` is given: the
 * jobs API names the failed step (still running jobs included, since the
 * action may be a later step of that very job), and the workflow file gives
 * its `run:` script, recovered the same way the App recovers it from a run.
 */
export async function findFailedStep(
  host: ActionCodeHost,
  query: FailedStepQuery,
): Promise<FailedStepResult> {
  const run = await host.workflowRun(query.runId);
  const chosen = currentJob(run.jobs, query);
  if ('problem' in chosen) return { problem: `${chosen.problem}; ${SET_COMMAND}.` };
  const workflowPath = run.path;
  const workflow = await readFile(join(query.workspace, workflowPath), 'utf8').catch(() => null);
  if (workflow === null) {
    return {
      problem: `cannot read ${workflowPath} in GITHUB_WORKSPACE (check the repository out first, e.g. with actions/checkout); or ${SET_COMMAND}.`,
    };
  }
  return commandOfStep({ text: workflow, path: workflowPath, images: query.images ?? {} }, chosen.found);
}

/** The failed step's `run:` script in the workflow file, run from the step's working directory. */
function commandOfStep(
  file: { text: string; path: string; images: ToolchainImageMap },
  ours: { job: Job; step: Step },
): FailedStepResult {
  const { text: workflow, path: workflowPath } = file;
  const query = { job: ours.job.name, step: ours.step.name, stepNumber: ours.step.number };
  const recovered = recoverFailingStep({ workflow }, query);
  if (recovered?.run == null) {
    const what = recovered?.uses
      ? `runs \`${recovered.uses}\`, not a script`
      : 'was not found in the workflow file';
    return {
      problem: `the failed step "${ours.step.name}" of job "${ours.job.name}" ${what}; ${SET_COMMAND}.`,
    };
  }
  const script = recovered.run.trim();
  const directory = recovered.workingDirectory;
  return {
    found: {
      // The sandbox starts at the workspace root; the step ran in its own working directory.
      command: directory ? `cd ${shellQuote(directory)} && ${script}` : script,
      jobName: ours.job.name,
      stepName: ours.step.name,
      workflowPath,
      derived: deriveEnvironment({ workflow }, query, { images: file.images }),
    },
  };
}

type Job = RunJob;
type Step = Job['steps'][number];

/**
 * The job this step runs in, and its failed step. RUNNER_NAME tells it apart
 * from the other jobs of a matrix, which share GITHUB_JOB (the job's key;
 * the API lists `key (values…)` or the job's own `name:`); a runner that ran
 * several jobs of the run is running ours now. Only this job's failure is
 * ours to debug: a sibling's failure is the sibling's step to fix. Without a
 * runner name (a `workflow_run` workflow, an old runner) the key decides,
 * then the only failed job.
 */
function currentJob(
  jobs: readonly Job[],
  query: FailedStepQuery,
): { found: { job: Job; step: Step } } | { problem: string } {
  const failedStep = (job: Job) => job.steps.find((step) => step.conclusion === 'failure');
  const onRunner = jobs.filter(
    (job) => query.runnerName !== undefined && job.runnerName === query.runnerName,
  );
  const byRunner = onRunner.find((job) => job.status === 'in_progress') ?? onRunner[0];
  if (byRunner !== undefined) {
    const step = failedStep(byRunner);
    return step === undefined
      ? { problem: `no step of this job ("${byRunner.name}", run ${query.runId}) has failed yet` }
      : { found: { job: byRunner, step } };
  }
  const failed = jobs.flatMap((job) => {
    const step = failedStep(job);
    return step === undefined ? [] : [{ job, step }];
  });
  const named =
    query.jobKey === undefined
      ? failed
      : failed.filter(({ job }) => isJobNamed(job.name, query.jobKey ?? ''));
  const candidates = named.length > 0 ? named : failed;
  if (candidates.length === 0) return { problem: `no step of workflow run ${query.runId} has failed yet` };
  if (candidates.length > 1 && query.jobKey !== undefined) {
    const names = candidates.map(({ job }) => `"${job.name}"`).join(', ');
    return { problem: `jobs ${names} failed and RUNNER_NAME does not tell which is this one` };
  }
  return { found: candidates[0] as { job: Job; step: Step } };
}

/** A matrix job is named `key (values…)` unless it has a `name:` of its own. */
function isJobNamed(name: string, key: string): boolean {
  return name === key || name.startsWith(`${key} (`);
}

function shellQuote(text: string): string {
  return /^[\w./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
