import { parse } from 'yaml';

/**
 * The parts of a workflow file (and of a local composite action's
 * `action.yml`) that recovering a step needs, read defensively: YAML from a
 * repository is untrusted, so every field is checked rather than cast.
 */
export interface WorkflowStep {
  name: string | null;
  run: string | null;
  uses: string | null;
  shell: string | null;
  workingDirectory: string | null;
  env: Record<string, string>;
  with: Record<string, string>;
}

interface RunDefaults {
  shell: string | null;
  workingDirectory: string | null;
}

export interface WorkflowJob {
  id: string;
  name: string | null;
  steps: WorkflowStep[];
  env: Record<string, string>;
  defaults: RunDefaults;
  /** `strategy.matrix`: each key's values, plus `include` entries. */
  matrix: { axes: Record<string, unknown[]>; include: Record<string, unknown>[] } | null;
  container: string | null;
  /** `services:`: sidecar containers the job's steps reach on localhost. */
  services: WorkflowService[];
  /** `services:` or `container:` add an "Initialize containers" step to the jobs API's list. */
  initializesContainers: boolean;
}

export interface WorkflowService {
  name: string;
  image: string;
  env: Record<string, string>;
  /** Container ports from `ports:` ("5432:5432", "6379", 8080). */
  ports: number[];
}

export interface Workflow {
  env: Record<string, string>;
  defaults: RunDefaults;
  jobs: WorkflowJob[];
}

export interface CompositeAction {
  steps: WorkflowStep[];
  /** Inputs' defaults, for `${{ inputs.x }}` in the action's scripts. */
  inputDefaults: Record<string, string>;
}

export function parseWorkflow(text: string): Workflow | null {
  const document = safeParse(text);
  if (!isRecord(document)) return null;
  const jobs = isRecord(document.jobs) ? document.jobs : {};
  return {
    env: stringMap(document.env),
    defaults: runDefaults(document.defaults),
    jobs: Object.entries(jobs).flatMap(([id, job]) => (isRecord(job) ? [parseJob(id, job)] : [])),
  };
}

/** A local action's `action.yml`, when it is a composite action (`runs.using: composite`). */
export function parseCompositeAction(text: string): CompositeAction | null {
  const document = safeParse(text);
  if (!isRecord(document) || !isRecord(document.runs) || document.runs.using !== 'composite') return null;
  const inputDefaults: Record<string, string> = {};
  if (isRecord(document.inputs)) {
    for (const [name, input] of Object.entries(document.inputs)) {
      if (isRecord(input) && input.default !== undefined && input.default !== null) {
        inputDefaults[name] = scalar(input.default);
      }
    }
  }
  return { steps: steps(document.runs.steps), inputDefaults };
}

function parseJob(id: string, job: Record<string, unknown>): WorkflowJob {
  const strategy = isRecord(job.strategy) ? job.strategy : {};
  const container = isRecord(job.container) ? job.container.image : job.container;
  return {
    id,
    name: typeof job.name === 'string' ? job.name : null,
    steps: steps(job.steps),
    env: stringMap(job.env),
    defaults: runDefaults(job.defaults),
    matrix: matrixOf(strategy.matrix),
    container: typeof container === 'string' ? container : null,
    services: services(job.services),
    initializesContainers: job.container !== undefined || job.services !== undefined,
  };
}

function services(value: unknown): WorkflowService[] {
  if (!isRecord(value)) return [];
  return Object.entries(value).flatMap(([name, service]) => {
    const image = isRecord(service) ? service.image : service;
    if (typeof image !== 'string' || image.trim() === '') return [];
    const ports = isRecord(service) && Array.isArray(service.ports) ? service.ports : [];
    return [
      {
        name,
        image,
        env: isRecord(service) ? stringMap(service.env) : {},
        // "host:container" publishes the container port; in a shared namespace the container port is what answers.
        ports: ports.flatMap((port) => {
          const number = Number(scalar(port).split(':').at(-1)?.split('/')[0]);
          return Number.isInteger(number) && number > 0 ? [number] : [];
        }),
      },
    ];
  });
}

function steps(value: unknown): WorkflowStep[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((step) => ({
    name: typeof step.name === 'string' ? step.name : null,
    run: typeof step.run === 'string' ? step.run : null,
    uses: typeof step.uses === 'string' ? step.uses : null,
    shell: typeof step.shell === 'string' ? step.shell : null,
    workingDirectory: typeof step['working-directory'] === 'string' ? step['working-directory'] : null,
    env: stringMap(step.env),
    with: stringMap(step.with),
  }));
}

function matrixOf(value: unknown): WorkflowJob['matrix'] {
  if (!isRecord(value)) return null;
  const axes: Record<string, unknown[]> = {};
  for (const [key, values] of Object.entries(value)) {
    if (key !== 'include' && key !== 'exclude' && Array.isArray(values)) axes[key] = values;
  }
  const include = Array.isArray(value.include) ? value.include.filter(isRecord) : [];
  return { axes, include };
}

function runDefaults(value: unknown): RunDefaults {
  const run = isRecord(value) && isRecord(value.run) ? value.run : {};
  return {
    shell: typeof run.shell === 'string' ? run.shell : null,
    workingDirectory: typeof run['working-directory'] === 'string' ? run['working-directory'] : null,
  };
}

function stringMap(value: unknown): Record<string, string> {
  if (!isRecord(value)) return {};
  const map: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (entry !== null && entry !== undefined && typeof entry !== 'object') map[key] = scalar(entry);
  }
  return map;
}

export function scalar(value: unknown): string {
  return typeof value === 'string'
    ? value
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value);
}

/** The YAML document, or null when it does not parse: a repository's file is untrusted. */
export function safeParse(text: string): unknown {
  try {
    return parse(text);
  } catch {
    return null;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
