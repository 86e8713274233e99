import {
  excerptLog,
  formatExcerpt,
  localActionPaths,
  recoverFailingStep,
  reproduce,
} from '../ci-logs/index.js';
import type { CodeHost } from '../code-host/code-host.js';
import { type DerivedEnvironment, deriveEnvironment } from '../environment/derive-environment.js';
import { JobRefusedError } from '../errors/job-errors.js';
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
  configured: { command?: string; setup: string[] },
): Promise<PreparedTask> {
  const { trigger } = request;
  const explicit = request.options.command ?? configured.command;
  const setupCommands = configured.setup;
  if (trigger.kind === 'mention') {
    if (explicit)
      return { task: { description: trigger.text, command: explicit, setupCommands }, scripts: [] };
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
  if (trigger.kind === 'review') {
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
  return workflowRunTask(request, trigger, host, explicit, setupCommands);
}

async function workflowRunTask(
  request: JobRequest,
  trigger: Extract<JobRequest['trigger'], { kind: 'workflow-run' }>,
  host: CodeHost,
  explicit: string | undefined,
  setupCommands: string[],
): Promise<PreparedTask> {
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
    const ref = request.headSha ?? trigger.branch;
    const workflow = await host.fileContent(trigger.workflowPath, ref);
    const actions: Record<string, string> = {};
    for (const path of workflow ? localActionPaths(workflow, job.name) : []) {
      const action =
        (await host.fileContent(`${path}/action.yml`, ref)) ??
        (await host.fileContent(`${path}/action.yaml`, ref));
      if (action) actions[path] = action;
    }
    const query = {
      job: job.name,
      step: step.name,
      stepNumber: step.number,
      logStep: excerpt?.failingStep ?? null,
    };
    const recovered = workflow ? recoverFailingStep({ workflow, actions }, query) : null;
    derived = workflow ? deriveEnvironment({ workflow, actions }, query) : null;
    if (!command) {
      const reproduction = recovered ? reproduce(recovered) : null;
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
  const description = [
    `The workflow "${trigger.workflowName}" failed on branch ${trigger.branch}` +
      `${job ? ` in job "${job.name}"` : ''}${step ? ` at step "${step.name}"` : ''}.`,
    excerpt && excerpt.lines.length > 0 ? `Log excerpt:\n${formatExcerpt(excerpt)}` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
  return { task: { description, command, setupCommands }, scripts: [], derived };
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
