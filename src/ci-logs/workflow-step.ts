import { parse } from 'yaml';

export interface RecoveredStep {
  jobId: string;
  stepName: string;
  /** The step's `run` script, or null for a `uses:` step that cannot run as a script. */
  run: string | null;
  uses: string | null;
  shell: string | null;
  workingDirectory: string | null;
}

interface WorkflowStep {
  name?: string;
  run?: string;
  uses?: string;
  shell?: string;
  'working-directory'?: string;
}

interface WorkflowJob {
  name?: string;
  steps?: WorkflowStep[];
  defaults?: { run?: { shell?: string; 'working-directory'?: string } };
}

/**
 * Finds the step a failed job stopped at in the workflow file. Jobs API names
 * look like `test (3.11, ubuntu)` for matrix jobs, so a job matches by its
 * `name` or id with any matrix suffix removed. Steps match by their name, or by
 * `Run <first line of the script>` as GitHub names unnamed run steps.
 */
export function recoverStep(workflowText: string, jobName: string, stepName: string): RecoveredStep | null {
  const workflow = parse(workflowText) as {
    jobs?: Record<string, WorkflowJob>;
    defaults?: { run?: { shell?: string; 'working-directory'?: string } };
  } | null;
  const jobs = workflow?.jobs ?? {};
  const bareName = jobName.replace(/\s*\(.*\)\s*$/, '');
  const entry = Object.entries(jobs).find(
    ([id, job]) =>
      id === jobName || id === bareName || job?.name === jobName || stripExpressions(job?.name) === bareName,
  );
  if (!entry) return null;
  const [jobId, job] = entry;
  const step = (job.steps ?? []).find(
    (candidate) => candidate.name === stepName || defaultName(candidate) === stepName,
  );
  if (!step) return null;
  const defaults = { ...workflow?.defaults?.run, ...job.defaults?.run };
  return {
    jobId,
    stepName,
    run: step.run ?? null,
    uses: step.uses ?? null,
    shell: step.shell ?? defaults.shell ?? null,
    workingDirectory: step['working-directory'] ?? defaults['working-directory'] ?? null,
  };
}

function defaultName(step: WorkflowStep): string | undefined {
  if (step.run) return `Run ${step.run.split('\n')[0]?.trim()}`;
  if (step.uses) return `Run ${step.uses}`;
  return undefined;
}

function stripExpressions(name: string | undefined): string | undefined {
  return name
    ?.replace(/\s*\$\{\{[^}]*\}\}\s*/g, ' ')
    .replace(/\s*\(\s*\)\s*$/, '')
    .trim();
}
