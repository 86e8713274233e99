import type { WorkflowService, WorkflowStep } from '../ci-logs/index.js';
import {
  type ExpressionScope,
  expressionsIn,
  findFailedJob,
  type StepQuery,
  substitute,
  usesSecret,
  type WorkflowFiles,
} from '../ci-logs/index.js';
import { type ToolchainImageMap, toolchainImage } from './toolchain-images.js';

interface SetupStep {
  name: string;
  run: string;
  shell: string | null;
  workingDirectory: string | null;
  env: Record<string, string>;
}

interface ServiceSpec {
  name: string;
  image: string;
  env: Record<string, string>;
  ports: number[];
}

interface SkippedStep {
  step: string;
  reason: string;
}

export interface DerivedEnvironment {
  /** Where it was read from, for the notes (default: the failing workflow job). */
  origin?: string;
  image: string | null;
  imageReason: string;
  setup: SetupStep[];
  services: ServiceSpec[];
  skipped: SkippedStep[];
}

/**
 * The failing job's environment, read from its workflow file: `container:`
 * or the setup-* actions give the image, the `run:` steps before the failing
 * one become setup commands (matrix values filled in, secrets left out), and
 * `services:` become sidecars. What cannot be reproduced is listed with why.
 */
export function deriveEnvironment(
  files: WorkflowFiles,
  query: StepQuery,
  options: { images?: ToolchainImageMap } = {},
): DerivedEnvironment | null {
  const failed = findFailedJob(files, query);
  if (!failed) return null;
  const { workflow, job, matrix, failing } = failed;
  const before = job.steps.slice(0, failing === -1 ? job.steps.length : failing);
  const derived: DerivedEnvironment = { image: null, imageReason: '', setup: [], services: [], skipped: [] };
  const scope: ExpressionScope = { matrix, env: { ...workflow.env, ...job.env }, runner: SANDBOX_RUNNER };
  // A title, an image or a value keeps an expression it cannot fill as written; a script cannot (below).
  const fill = (text: string) => substitute(text, scope, new Set());

  if (job.container) {
    derived.image = fill(job.container);
    derived.imageReason = `the job's container: ${derived.image}`;
  }
  for (const [index, step] of before.entries()) {
    const title = step.name ? fill(step.name) : step.uses ? `uses ${step.uses}` : `step ${index + 1}`;
    if (step.uses) {
      useAction(derived, step, title, fill, options.images);
      continue;
    }
    if (!step.run) continue;
    const env = { ...scope.env, ...step.env };
    const script = replayableScript(step.run, { ...scope, env });
    if ('skip' in script) {
      derived.skipped.push({ step: title, reason: script.skip });
      continue;
    }
    derived.setup.push(setupStep(step, title, script.run, fill, env, [job.defaults, workflow.defaults]));
  }
  derived.services = job.services.map((service) => serviceSpec(service, fill));
  if (!derived.image) derived.imageReason = "no container or setup action: the App's default image";
  return derived;
}

/** What `${{ runner.* }}` says inside the sandbox, which is a Linux container like ubuntu-latest. */
const SANDBOX_RUNNER: Record<string, string> = { os: 'Linux' };

/**
 * A `run:` script with its values filled in, or why it cannot be replayed. An
 * expression left as written (`${{ github.ref }}`, `${{ steps.x.outputs.y }}`)
 * is a syntax error to the shell, so the step is listed as skipped rather than
 * run to fail. The filled script is checked too: `${{ env.X }}` can bring in a
 * value that itself draws on a secret or on GitHub.
 */
function replayableScript(script: string, scope: ExpressionScope): { run: string } | { skip: string } {
  const run = substitute(script, scope, new Set());
  // An expression it cannot fill stays as written, so a secret in the script is still in `run`.
  if (usesSecret(run)) return { skip: 'its script uses a secret, which never enters the sandbox' };
  const left = expressionsIn(run);
  if (left.length > 0)
    return { skip: `its script uses ${left.join(', ')}, which only GitHub Actions can fill in` };
  return { run };
}

/** A `services:` sidecar with matrix and env values filled in; a variable that uses a secret is left out. */
function serviceSpec(service: WorkflowService, fill: (text: string) => string): ServiceSpec {
  return {
    name: service.name,
    image: fill(service.image),
    env: Object.fromEntries(
      Object.entries(service.env)
        .filter(([, value]) => !usesSecret(value))
        .map(([key, value]) => [key, fill(value)]),
    ),
    ports: service.ports,
  };
}

function useAction(
  derived: DerivedEnvironment,
  step: WorkflowStep,
  title: string,
  fill: (text: string) => string,
  images: ToolchainImageMap | undefined,
): void {
  const action = step.uses!.split('@')[0]!.toLowerCase();
  if (action === 'actions/checkout') {
    derived.skipped.push({
      step: title,
      reason: 'the workspace is already checked out at the commit under test',
    });
    return;
  }
  const inputs = Object.fromEntries(Object.entries(step.with).map(([key, value]) => [key, fill(value)]));
  const toolchain = toolchainImage(action, inputs, images);
  if (!toolchain) {
    derived.skipped.push({
      step: title,
      reason: `the action ${step.uses} cannot run outside GitHub Actions`,
    });
    return;
  }
  if (derived.image) {
    derived.skipped.push({
      step: title,
      reason: `toolchain ${toolchain.image} is not in the image ${derived.image}; add a setup command or choose an image`,
    });
    return;
  }
  derived.image = toolchain.image;
  derived.imageReason = toolchain.reason;
}

type RunDefaults = { shell: string | null; workingDirectory: string | null };

/** A replayable `run:` step; its shell and folder come from the step, else the job's then the workflow's defaults. */
function setupStep(
  step: WorkflowStep,
  title: string,
  run: string,
  fill: (text: string) => string,
  env: Record<string, string>,
  defaults: RunDefaults[],
): SetupStep {
  const kept = Object.entries(env).filter(([, value]) => !usesSecret(value));
  const workingDirectory =
    step.workingDirectory ?? defaults.find((d) => d.workingDirectory)?.workingDirectory;
  return {
    name: title,
    run,
    shell: step.shell ?? defaults.find((d) => d.shell)?.shell ?? null,
    workingDirectory: workingDirectory ? fill(workingDirectory) : null,
    env: Object.fromEntries(kept.map(([key, value]) => [key, fill(value)])),
  };
}

/** `.devcontainer/devcontainer.json` (JSON with comments): its image or Dockerfile, and postCreateCommand. */
export function environmentFromDevcontainer(
  jsonText: string,
): { image: string | null; dockerfile: string | null; setup: string[]; reason: string } | null {
  let document: Record<string, unknown>;
  try {
    document = JSON.parse(stripJsonComments(jsonText)) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof document !== 'object' || document === null) return null;
  const build =
    typeof document.build === 'object' && document.build !== null
      ? (document.build as Record<string, unknown>)
      : {};
  const image = typeof document.image === 'string' ? document.image : null;
  const dockerfile =
    typeof build.dockerfile === 'string'
      ? build.dockerfile
      : typeof document.dockerFile === 'string'
        ? document.dockerFile
        : null;
  const command = document.postCreateCommand;
  const setup =
    typeof command === 'string'
      ? [command]
      : Array.isArray(command)
        ? [command.map(String).join(' ')]
        : typeof command === 'object' && command !== null
          ? Object.values(command).map((value) =>
              Array.isArray(value) ? value.map(String).join(' ') : String(value),
            )
          : [];
  const reason = image ? `image ${image}` : dockerfile ? `Dockerfile ${dockerfile}` : 'no image named';
  return { image, dockerfile, setup, reason };
}

/** Comments and trailing commas out, strings left alone. */
function stripJsonComments(text: string): string {
  let result = '';
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (char === '"') {
      const end = endOfString(text, index);
      result += text.slice(index, end);
      index = end - 1;
    } else if (char === '/' && text[index + 1] === '/') {
      while (index < text.length && text[index] !== '\n') index++;
      result += '\n';
    } else if (char === '/' && text[index + 1] === '*') {
      index = text.indexOf('*/', index + 2);
      if (index === -1) break;
      index++;
    } else result += char;
  }
  return result.replace(/,(\s*[}\]])/g, '$1');
}

function endOfString(text: string, start: number): number {
  for (let index = start + 1; index < text.length; index++) {
    if (text[index] === '\\') index++;
    else if (text[index] === '"') return index + 1;
  }
  return text.length;
}
