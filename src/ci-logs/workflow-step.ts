import { type MatchedJob, matchJob, substitute, usesSecret } from './workflow-matrix.js';
import {
  type CompositeAction,
  parseCompositeAction,
  parseWorkflow,
  type Workflow,
  type WorkflowJob,
  type WorkflowStep,
} from './workflow-yaml.js';

/**
 * Which workflow step a failed job stopped at, and what it takes to run that
 * step again outside Actions: its script, shell, working directory, the env
 * it saw (secrets left out), the job's matrix values, and for a step inside a
 * local composite action, the inner step that failed.
 */
export interface RecoveredStep {
  jobId: string;
  stepName: string;
  /** The step's script with matrix and input values filled in; null for a `uses:` step. */
  run: string | null;
  uses: string | null;
  /** Step, then job, then workflow `defaults.run` (composite steps name their own). */
  shell: string | null;
  workingDirectory: string | null;
  /** Workflow, job and step env merged, values filled in; secret-bearing values left out. */
  env: Record<string, string>;
  /** Env names left out because their value uses `secrets.*` or `github.token`. */
  droppedEnv: string[];
  matrix: Record<string, string>;
  /** `./path` of the local composite action the step belongs to, when it does. */
  composite: string | null;
  /** The job's container image: the step ran inside it. */
  container: string | null;
  /** Expressions left as written (`${{ github.sha }}`, `${{ secrets.TOKEN }}` in a script). */
  unresolved: string[];
}

export interface WorkflowFiles {
  workflow: string;
  /** `action.yml` texts of local actions, by the path steps use (`./.github/actions/setup`). */
  actions?: Record<string, string>;
}

export interface StepQuery {
  /** The jobs API's job name: `test (3.11, ubuntu-latest)`, or the job id. */
  job: string;
  /** The jobs API's name for the failed step: its `name:`, or `Run <first line>`. */
  step?: string | null;
  /** The jobs API's step number: 1 is "Set up job", workflow steps follow. */
  stepNumber?: number | null;
  /** The failing step as the log titles it (`LogExcerpt.failingStep`); finds inner composite steps. */
  logStep?: string | null;
}

/** The compatible form: a workflow's text, the jobs API's job name and step name. */
export function recoverStep(workflowText: string, jobName: string, stepName: string): RecoveredStep | null {
  return recoverFailingStep({ workflow: workflowText }, { job: jobName, step: stepName });
}

/** The failed job in its workflow, with its matrix values and where its failing step is (-1: not found). */
export interface FailedJob extends MatchedJob {
  workflow: Workflow;
  failing: number;
}

export function findFailedJob(files: WorkflowFiles, query: StepQuery): FailedJob | null {
  const workflow = parseWorkflow(files.workflow);
  if (!workflow) return null;
  const matched = matchJob(workflow, query.job);
  if (!matched) return null;
  return { ...matched, workflow, failing: findStep(matched.job, query, matched.matrix) };
}

export function recoverFailingStep(files: WorkflowFiles, query: StepQuery): RecoveredStep | null {
  const failed = findFailedJob(files, query);
  if (!failed) return null;
  const { workflow, job, matrix } = failed;
  let index = failed.failing;
  if (index === -1 && query.logStep) index = findCompositeHolding(job, query.logStep, files.actions, matrix);
  if (index === -1) return null;
  const step = job.steps[index]!;
  const unresolved = new Set<string>();
  const outer = {
    env: { ...workflow.env, ...job.env, ...step.env },
    shell: step.shell ?? job.defaults.shell ?? workflow.defaults.shell,
    workingDirectory:
      step.workingDirectory ?? job.defaults.workingDirectory ?? workflow.defaults.workingDirectory,
  };
  const inner = recoverInnerStep(job, step, query, files.actions, { matrix, env: outer.env, unresolved });
  if (inner) return inner;
  return {
    ...describe(job, step, query, outer.env, { matrix }, unresolved),
    shell: outer.shell,
    workingDirectory:
      outer.workingDirectory === null ? null : substitute(outer.workingDirectory, { matrix }, unresolved),
  };
}

/** A title no top-level step has may be an inner step of a local composite action: the step that holds it. */
function findCompositeHolding(
  job: WorkflowJob,
  logStep: string,
  actions: Record<string, string> | undefined,
  matrix: Record<string, string>,
): number {
  return job.steps.findIndex((step) => {
    const composite = localComposite(step, actions);
    if (composite === null) return false;
    const inputs = inputsOf(composite.action, step, matrix, new Set());
    return findInnerStep(composite.action, logStep, { matrix, inputs }, true) !== null;
  });
}

/** What the failing step's outer values become inside it. */
interface OuterScope {
  matrix: Record<string, string>;
  env: Record<string, string>;
  unresolved: Set<string>;
}

/** When the failing step runs a local composite action: the inner step that failed, described. */
function recoverInnerStep(
  job: WorkflowJob,
  step: WorkflowStep,
  query: StepQuery,
  actions: Record<string, string> | undefined,
  { matrix, env, unresolved }: OuterScope,
): RecoveredStep | null {
  const composite = localComposite(step, actions);
  if (!composite) return null;
  const inputs = inputsOf(composite.action, step, matrix, unresolved);
  const context = { matrix, inputs };
  const inner = findInnerStep(composite.action, query.logStep ?? null, context);
  if (!inner) return null;
  return {
    ...describe(job, inner, query, { ...env, ...inner.env }, context, unresolved),
    shell: inner.shell,
    workingDirectory:
      inner.workingDirectory === null ? null : substitute(inner.workingDirectory, context, unresolved),
    composite: composite.path,
  };
}

function describe(
  job: WorkflowJob,
  step: WorkflowStep,
  query: StepQuery,
  rawEnv: Record<string, string>,
  context: { matrix: Record<string, string>; inputs?: Record<string, string> },
  unresolved: Set<string>,
): RecoveredStep {
  const env: Record<string, string> = {};
  const droppedEnv: string[] = [];
  for (const [name, value] of Object.entries(rawEnv)) {
    if (usesSecret(value)) droppedEnv.push(name);
    else env[name] = substitute(value, context, unresolved);
  }
  const run = step.run === null ? null : substitute(step.run, { ...context, env }, unresolved);
  return {
    jobId: job.id,
    stepName: query.step ?? query.logStep ?? step.name ?? defaultName(step) ?? '',
    run,
    uses: step.uses,
    shell: step.shell,
    workingDirectory: step.workingDirectory,
    env,
    droppedEnv,
    matrix: context.matrix,
    composite: null,
    container: job.container === null ? null : substitute(job.container, context, unresolved),
    unresolved: [...unresolved],
  };
}

/**
 * The step by the API's name (also as `Post <name>` for post steps), then by
 * the log's `Run <first line>` title, then by the API's step number.
 */
function findStep(job: WorkflowJob, query: StepQuery, matrix: Record<string, string>): number {
  const unused = new Set<string>();
  const names = job.steps.map((step) =>
    step.name === null ? null : substitute(step.name, { matrix }, unused),
  );
  const titles = job.steps.map((step) => titleOf(step, { matrix }));
  const byName = (wanted: string): number => {
    const bare = wanted.startsWith('Post ') ? wanted.slice(5) : wanted;
    const found = names.findIndex((name) => name === wanted || name === bare);
    return found !== -1 ? found : titles.findIndex((title) => title === wanted || title === bare);
  };
  const numbered = query.stepNumber ? query.stepNumber - (job.initializesContainers ? 3 : 2) : -1;
  for (const wanted of [query.step, query.logStep]) {
    if (!wanted) continue;
    const found = byName(wanted.trim());
    if (found === -1) continue;
    // Two steps can share a title; the API's number tells them apart.
    if (numbered >= 0 && (names[numbered] === wanted || titles[numbered] === wanted)) return numbered;
    return found;
  }
  return numbered >= 0 && numbered < job.steps.length ? numbered : -1;
}

/** The title the log shows: GitHub evaluates expressions in the script before it titles the step. */
function titleOf(
  step: WorkflowStep,
  context: { matrix: Record<string, string>; inputs?: Record<string, string> },
): string | null {
  const title = defaultName(step);
  return title === null ? null : substitute(title, context, new Set());
}

/** How GitHub titles a step without `name:` (and every run step in the log): `Run <first line>`. */
function defaultName(step: WorkflowStep): string | null {
  if (step.run !== null) return `Run ${step.run.trim().split('\n')[0]?.trim() ?? ''}`;
  if (step.uses !== null) return `Run ${step.uses}`;
  return null;
}

function localComposite(
  step: WorkflowStep,
  actions: Record<string, string> | undefined,
): { path: string; action: CompositeAction } | null {
  if (!step.uses?.startsWith('./') || !actions) return null;
  const wanted = normalizeActionPath(step.uses);
  for (const [path, text] of Object.entries(actions)) {
    if (normalizeActionPath(path) !== wanted) continue;
    const action = parseCompositeAction(text);
    return action ? { path: step.uses, action } : null;
  }
  return null;
}

function normalizeActionPath(path: string): string {
  return path
    .replace(/^\.\//, '')
    .replace(/\/action\.ya?ml$/, '')
    .replace(/\/+$/, '');
}

/** The inner step the log names; without a title, the only run step if there is one. */
function findInnerStep(
  action: CompositeAction,
  logStep: string | null,
  context: { matrix: Record<string, string>; inputs: Record<string, string> },
  byTitleOnly = false,
): WorkflowStep | null {
  const unused = new Set<string>();
  if (logStep) {
    const found = action.steps.find(
      (step) =>
        titleOf(step, context) === logStep ||
        (step.name !== null && substitute(step.name, context, unused) === logStep),
    );
    if (found) return found;
  }
  if (byTitleOnly) return null;
  const runs = action.steps.filter((step) => step.run !== null);
  return runs.length === 1 ? runs[0]! : null;
}

/** A composite's inputs: the defaults its action.yml declares, overridden by the step's `with:`. */
function inputsOf(
  action: CompositeAction,
  step: WorkflowStep,
  matrix: Record<string, string>,
  unresolved: Set<string>,
): Record<string, string> {
  const given = Object.entries(step.with).map(([key, value]) => [
    key,
    substitute(value, { matrix }, unresolved),
  ]);
  return { ...action.inputDefaults, ...Object.fromEntries(given) };
}

/** Repository paths of the local actions (`uses: ./path`) a job runs: their `action.yml` may be needed. */
export function localActionPaths(workflowText: string, jobName: string): string[] {
  const workflow = parseWorkflow(workflowText);
  const matched = workflow ? matchJob(workflow, jobName) : null;
  const paths = (matched?.job.steps ?? []).flatMap((step) =>
    step.uses?.startsWith('./') ? [normalizeActionPath(step.uses)] : [],
  );
  return [...new Set(paths)];
}
