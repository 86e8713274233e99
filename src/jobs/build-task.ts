import {
  excerptLog,
  formatExcerpt,
  localActionPaths,
  recoverFailingStep,
  reproduce,
} from '../ci-logs/index.js';
import type { CodeHost } from '../code-host/code-host.js';
import { type DerivedEnvironment, deriveEnvironment } from '../environment/derive-environment.js';
import type { ToolchainImageMap } from '../environment/toolchain-images.js';
import { JobRefusedError } from '../errors/index.js';
import type { DebugTask } from '../loop/task.js';
import type { JobRequest, ScriptBlock } from '../queue/job-request.js';

export interface PreparedTask {
  task: DebugTask;
  /** Files to write into the workspace before the job (an issue's code blocks). */
  scripts: { path: string; content: string }[];
  /** For a failed run: the failing job's image, setup steps and services, read from its workflow file. */
  derived?: DerivedEnvironment | null;
}

const LOG_EXCERPT_CHARS = 12_000;

/**
 * What the model is told and which command proves the fix, per trigger:
 * the inline or configured command first; an issue's code blocks when there
 * is none; for a failed run, the failing step's script and a log excerpt.
 */
export async function buildTask(
  request: JobRequest,
  host: CodeHost,
  configured: { command?: string; setup: string[]; toolchainImages?: ToolchainImageMap },
): Promise<PreparedTask> {
  const { trigger } = request;
  const explicit = request.options.command ?? configured.command;
  const setupCommands = configured.setup;
  if (trigger.kind === 'mention') return mentionTask(request, trigger, explicit, setupCommands);
  if (trigger.kind === 'review') return reviewTask(trigger, host, explicit, setupCommands);
  return workflowRunTask(request, trigger, host, {
    explicit,
    setupCommands,
    images: configured.toolchainImages,
  });
}

/** A mention: the command it names (or the config's), else the issue's code blocks, written out and run. */
function mentionTask(
  request: JobRequest,
  trigger: Extract<JobRequest['trigger'], { kind: 'mention' }>,
  explicit: string | undefined,
  setupCommands: string[],
): PreparedTask {
  if (explicit) return { task: { description: trigger.text, command: explicit, setupCommands }, scripts: [] };
  const scripts = trigger.scriptBlocks.map((block, index) => scriptFile(block, index, request));
  if (scripts.length === 0) {
    throw new JobRefusedError(
      'I do not know which command to run. Put it in backticks (``@selfdebug fix `pytest tests/` ``), add a ' +
        '```python or ```sh block with the failing script to the issue, or set `command` in `.github/selfdebug.yml`.',
    );
  }
  const command = scripts.map((script) => script.run).join(' && ');
  return {
    task: { description: trigger.text, command, setupCommands },
    scripts: scripts.map(({ path, content }) => ({ path, content })),
  };
}

/** A review asking for changes: the review and its comments on the code, verified by the configured command. */
async function reviewTask(
  trigger: Extract<JobRequest['trigger'], { kind: 'review' }>,
  host: CodeHost,
  explicit: string | undefined,
  setupCommands: string[],
): Promise<PreparedTask> {
  const comments = trigger.reviewId ? await host.reviewComments(trigger.pullNumber, trigger.reviewId) : [];
  const lines = comments.map(
    (comment) => `- ${comment.path}${comment.line ? `:${comment.line}` : ''}: ${comment.body}`,
  );
  const description = [
    'A reviewer asked for changes to this fix.',
    trigger.text ? `Review:\n${trigger.text}` : '',
    lines.length > 0 ? `Comments on the code:\n${lines.join('\n')}` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
  if (!explicit) {
    throw new JobRefusedError(
      'Set `command` in `.github/selfdebug.yml` so I can verify changes asked for in a review.',
    );
  }
  return { task: { description, command: explicit, setupCommands }, scripts: [] };
}

async function workflowRunTask(
  request: JobRequest,
  trigger: Extract<JobRequest['trigger'], { kind: 'workflow-run' }>,
  host: CodeHost,
  configured: {
    explicit: string | undefined;
    setupCommands: string[];
    images: ToolchainImageMap | undefined;
  },
): Promise<PreparedTask> {
  const { explicit, setupCommands } = configured;
  const [job] = await host.failedJobs(trigger.runId);
  const step = job?.steps.find((candidate) => candidate.conclusion === 'failure');
  // Streamed: a job log can be hundreds of megabytes; the excerpt reads it once in bounded memory.
  const excerpt = job
    ? await excerptLog(await host.jobLog(job.id), { maxCharacters: LOG_EXCERPT_CHARS })
    : null;
  let command = explicit;
  let why: string | null = null;
  let derived: DerivedEnvironment | null = null;
  if (job && step) {
    const query = {
      job: job.name,
      step: step.name,
      stepNumber: step.number,
      logStep: excerpt?.failingStep ?? null,
    };
    const ref = request.headSha ?? trigger.branch;
    const found = await fromWorkflow(
      host,
      { path: trigger.workflowPath, ref, images: configured.images },
      query,
    );
    derived = found.derived;
    if (!command) {
      const reproduction = found.recovered ? reproduce(found.recovered) : null;
      command = reproduction?.command ?? undefined;
      why = reproduction?.note ?? null;
    }
  }
  if (!command) {
    throw new JobRefusedError(
      `I could not find a script for the failing step${step ? ` "${step.name}"` : ''} of "${trigger.workflowName}". ` +
        `${why ?? 'It may be an action rather than a `run:` step.'} Set \`command\` in \`.github/selfdebug.yml\`.`,
    );
  }
  const description = runDescription(trigger, job?.name, step?.name, excerpt);
  return { task: { description, command, setupCommands }, scripts: [], derived };
}

/** What failed where, and the log excerpt when there is one. */
function runDescription(
  trigger: Extract<JobRequest['trigger'], { kind: 'workflow-run' }>,
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

function scriptFile(
  block: ScriptBlock,
  index: number,
  request: JobRequest,
): { path: string; content: string; run: string } {
  const issue = request.trigger.kind === 'mention' ? request.trigger.issueNumber : 0;
  const extension = block.language === 'python' ? 'py' : block.language === 'node' ? 'js' : 'sh';
  const path = `selfdebug-scripts/issue-${issue}-${index + 1}.${extension}`;
  const runner =
    block.language === 'python' ? 'python3' : block.language === 'node' ? 'node' : block.language;
  return { path, content: block.code, run: `${runner} ${path}` };
}
