import { readFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { parseWorkflow } from '../ci-logs/index.js';
import type { FolderConfig } from '../config/folder-config.js';
import { type DerivedEnvironment, deriveEnvironment } from '../environment/derive-environment.js';
import { folderToolchain } from '../environment/folder-toolchain.js';
import { type EnvironmentPlan, planEnvironment } from '../environment/plan-environment.js';
import type { ToolchainImageMap } from '../environment/toolchain-images.js';
import type { FixOptions } from './fix-options.js';
import { UsageError } from './option-values.js';

/** What the CLI's environment is planned from. */
export interface FixEnvironmentInput {
  options: Pick<FixOptions, 'setup' | 'image' | 'workflow'>;
  folder: FolderConfig;
  /** Absolute. */
  dir: string;
  command: string;
  toolchainImages: ToolchainImageMap;
  allowedImages: readonly string[];
}

/**
 * What the sandbox is set up with, planned by the App's own functions: the
 * environment derived from `--workflow FILE[:JOB]` (as the App derives a
 * failed run's), else from the folder's toolchain files; then the flags and
 * the folder's .github/selfdebug.yml replace the parts they name.
 */
export async function planFixEnvironment(input: FixEnvironmentInput): Promise<EnvironmentPlan> {
  const { options, folder, dir } = input;
  const derived =
    options.workflow === undefined
      ? await folderToolchain(dir, input.toolchainImages)
      : await fromWorkflowFile(options.workflow, dir, input.command, input.toolchainImages);
  const file = folder.path ?? '.github/selfdebug.yml';
  return planEnvironment(
    {
      // The flags replace the file's setup and image, as they do every other setting.
      setup: options.setup.length > 0 ? options.setup : folder.config.setup,
      sandbox: { ...folder.config.sandbox, image: options.image ?? folder.config.sandbox.image },
    },
    derived,
    dir,
    {
      derive: true,
      allowedImages: input.allowedImages,
      names: {
        image: options.image === undefined ? `sandbox.image in ${file}` : '--image',
        setup: options.setup.length > 0 ? '--setup' : `\`setup\` in ${file}`,
        // Any host can be allowed from the command line, whoever chose the setup.
        hosts: `--allow-host (or sandbox.allowed_hosts in ${file})`,
        config: options.setup.length > 0 || options.image !== undefined ? 'the flags' : file,
      },
    },
  );
}

/**
 * `FILE[:JOB]`: the job (the only one when not named) and, as the failing
 * step, the step whose script is the command; the steps before it are setup.
 */
async function fromWorkflowFile(
  value: string,
  dir: string,
  command: string,
  images: ToolchainImageMap,
): Promise<DerivedEnvironment> {
  const { path, job: named } = splitWorkflowArgument(value);
  const file = await readWorkflow(path, dir);
  const workflow = parseWorkflow(file.text);
  if (!workflow || workflow.jobs.length === 0)
    throw new UsageError(`--workflow ${file.shown} has no jobs. Give a GitHub Actions workflow file.`);
  const ids = workflow.jobs.map((job) => job.id);
  const job = named ?? (ids.length === 1 ? ids[0]! : undefined);
  const found = workflow.jobs.find((candidate) => candidate.id === job || candidate.name === job);
  if (!found)
    throw new UsageError(
      `--workflow ${value}: ${named === undefined ? 'the file has several jobs' : `no job "${named}"`}; ` +
        `name one as ${path}:JOB (jobs: ${ids.join(', ')}).`,
    );
  const index = found.steps.findIndex((step) => step.run?.trim() === command.trim());
  if (index === -1)
    throw new UsageError(
      `--workflow ${value}: no step of job "${found.id}" runs \`${command}\`, so it is unclear which steps are setup. ` +
        'Give --command exactly as the failing step writes it.',
    );
  // The jobs API's numbering: "Set up job" (and "Initialize containers") come first.
  const stepNumber = index + (found.initializesContainers ? 3 : 2);
  const derived = deriveEnvironment({ workflow: file.text }, { job: found.id, stepNumber }, { images });
  if (!derived) throw new UsageError(`--workflow ${value}: the job "${found.id}" could not be read.`);
  return derived;
}

/** `path/ci.yml:test` → the path and the job; a `:` that is part of the path (no job after it) stays. */
function splitWorkflowArgument(value: string): { path: string; job: string | undefined } {
  const match = /^(.*\.ya?ml):([^/:]+)$/.exec(value);
  return match ? { path: match[1]!, job: match[2]! } : { path: value, job: undefined };
}

/** The file inside --dir, where a repository keeps it, else as given from the current folder. */
async function readWorkflow(path: string, dir: string): Promise<{ text: string; shown: string }> {
  const candidates = isAbsolute(path) ? [path] : [join(dir, path), resolve(path)];
  for (const candidate of candidates) {
    const text = await readFile(candidate, 'utf8').catch(() => null);
    if (text !== null) return { text, shown: relative(process.cwd(), candidate) || candidate };
  }
  throw new UsageError(`--workflow: cannot read ${path} (looked in ${dir} and in the current folder).`);
}
