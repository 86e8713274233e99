import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EnvironmentRequest, SettingNames, SetupCommand } from '../sandbox/environment.js';
import { type DerivedEnvironment, environmentFromDevcontainer } from './derive-environment.js';
import { checkImageAllowed } from './image-policy.js';
import { setupInputDigests } from './setup-inputs.js';

/**
 * The keys of .github/selfdebug.yml that choose the environment. Declared
 * here (config's RepoConfig fits it) so environment/ stays below config/,
 * whose schemas import the loop's.
 */
export interface ConfiguredEnvironment {
  setup: readonly string[];
  sandbox: {
    image?: string | undefined;
    allowed_hosts: readonly string[];
    /** Globs of further files setup reads, for the cache key (like hashFiles). */
    cache_key_files?: readonly string[] | undefined;
  };
}

export interface EnvironmentPlan {
  request: EnvironmentRequest;
  /** Where the environment came from, for the transcript. */
  source: string;
}

/**
 * Chooses a job's environment. What was derived (the failing job's workflow:
 * its container or setup-* actions, the run steps before the failing one,
 * its services; or, for the CLI, the folder's toolchain files) is the base,
 * and each key the repository configures replaces its own part only:
 * `sandbox.image` the image, `setup` the setup commands. With nothing
 * derived, the configuration alone, else `.devcontainer/devcontainer.json`,
 * else the App's image with nothing installed. Steps that cannot be
 * reproduced are named in the notes with the reason.
 */
export async function planEnvironment(
  config: ConfiguredEnvironment,
  derivedFromWorkflow: DerivedEnvironment | null | undefined,
  checkoutDir: string,
  operator: PlanOperator,
): Promise<EnvironmentPlan> {
  const plan = await choosePlan(config, derivedFromWorkflow, checkoutDir, operator);
  return { ...plan, request: { ...plan.request, names: operator.names ?? REPOSITORY_NAMES } };
}

interface PlanOperator {
  derive: boolean;
  allowedImages: readonly string[];
  names?: ConfiguredNames;
}

async function choosePlan(
  config: ConfiguredEnvironment,
  derivedFromWorkflow: DerivedEnvironment | null | undefined,
  checkoutDir: string,
  operator: PlanOperator,
): Promise<EnvironmentPlan> {
  const allowedHosts = [...config.sandbox.allowed_hosts];
  const parts = { allowedHosts, keyFiles: config.sandbox.cache_key_files ?? [] };
  const derived = operator.derive ? (derivedFromWorkflow ?? null) : null;
  const names = operator.names ?? REPOSITORY_NAMES;
  if (derived) {
    const allowed = withAllowedImage(derived, operator.allowedImages);
    return derivedPlan(withConfigured(allowed, config, names), checkoutDir, parts);
  }
  const configured = config.setup.length > 0 || config.sandbox.image !== undefined;
  if (configured || !(await hasDevcontainer(checkoutDir))) {
    const setup = config.setup.map((command): SetupCommand => ({ command }));
    return {
      source: configured ? `the repository configuration (${names.config})` : "the App's default image",
      request: {
        setup,
        services: [],
        allowedHosts,
        lockfiles: await setupInputDigests(checkoutDir, setup, parts.keyFiles),
        notes: [],
      },
    };
  }
  return devcontainerPlan(checkoutDir, parts);
}

/** How the notes and advice name where the image, the setup, the hosts and the rest came from. */
type ConfiguredNames = SettingNames;

const REPOSITORY_NAMES: ConfiguredNames = {
  image: 'sandbox.image in .github/selfdebug.yml',
  setup: '`setup` in .github/selfdebug.yml',
  hosts: 'sandbox.allowed_hosts in .github/selfdebug.yml',
  config: '.github/selfdebug.yml',
};

/** A derivation with the configured keys in place: `sandbox.image` replaces only the image, `setup` only the steps. */
function withConfigured(
  derived: DerivedEnvironment,
  config: ConfiguredEnvironment,
  names: ConfiguredNames,
): DerivedEnvironment & { configuredSetup: readonly string[] | null } {
  const image = config.sandbox.image;
  const replaced = config.setup.length > 0;
  return {
    ...derived,
    ...(image === undefined
      ? {}
      : {
          image,
          imageReason: `${derived.imageReason}; the image is ${image} from ${names.image}, the derived setup is kept`,
        }),
    skipped: [
      ...derived.skipped,
      ...(replaced
        ? derived.setup.map((step) => ({ step: step.name, reason: `${names.setup} replaces it` }))
        : []),
    ],
    configuredSetup: replaced ? config.setup : null,
  };
}

/** What every plan takes from the repository's configuration, whatever its source. */
interface RepositoryParts {
  allowedHosts: string[];
  keyFiles: readonly string[];
}

async function derivedPlan(
  derived: DerivedEnvironment & { configuredSetup: readonly string[] | null },
  checkoutDir: string,
  { allowedHosts, keyFiles }: RepositoryParts,
): Promise<EnvironmentPlan> {
  const setup =
    derived.configuredSetup?.map((command): SetupCommand => ({ command })) ??
    derived.setup.map(
      (step): SetupCommand => ({
        command: asShell(step.shell, step.run),
        name: step.name,
        ...(step.workingDirectory ? { cwd: step.workingDirectory } : {}),
        env: step.env,
      }),
    );
  const origin = derived.origin ?? 'the failing workflow job';
  const notes = [
    `environment read from ${origin}: ${derived.imageReason}`,
    ...derived.skipped.map((skipped) => `skipped step "${skipped.step}": ${skipped.reason}`),
  ];
  return {
    source: origin,
    request: {
      ...(derived.image ? { image: derived.image } : {}),
      setup,
      services: derived.services.map((service) => ({
        name: service.name,
        image: service.image,
        env: service.env,
        ports: service.ports,
      })),
      allowedHosts,
      lockfiles: await setupInputDigests(checkoutDir, setup, keyFiles),
      notes,
    },
  };
}

/** A derived image the operator does not allow is a suggestion only: the App's image stands in, and the notes say so. */
function withAllowedImage(derived: DerivedEnvironment, allowedImages: readonly string[]): DerivedEnvironment {
  if (!derived.image) return derived;
  try {
    checkImageAllowed(derived.image, allowedImages);
    return derived;
  } catch {
    return {
      ...derived,
      image: null,
      imageReason: `${derived.imageReason}, which this App does not allow (SELFDEBUG_ALLOWED_IMAGES), so the App's image is used`,
    };
  }
}

async function devcontainerPlan(
  checkoutDir: string,
  { allowedHosts, keyFiles }: RepositoryParts,
): Promise<EnvironmentPlan> {
  const text = await readFile(join(checkoutDir, '.devcontainer', 'devcontainer.json'), 'utf8');
  const found = environmentFromDevcontainer(text);
  const setup = (found?.setup ?? []).map((command): SetupCommand => ({ command, name: 'postCreateCommand' }));
  const notes = [
    `environment read from .devcontainer/devcontainer.json: ${found?.reason ?? 'it could not be read'}`,
  ];
  if (found?.dockerfile)
    notes.push(`its Dockerfile (${found.dockerfile}) is not built; the image or the App's default is used`);
  return {
    source: '.devcontainer/devcontainer.json',
    request: {
      ...(found?.image ? { image: found.image } : {}),
      setup,
      services: [],
      allowedHosts,
      lockfiles: await setupInputDigests(checkoutDir, setup, keyFiles),
      notes,
    },
  };
}

async function hasDevcontainer(checkoutDir: string): Promise<boolean> {
  return readFile(join(checkoutDir, '.devcontainer', 'devcontainer.json')).then(
    () => true,
    () => false,
  );
}

/** Actions runs `bash -eo pipefail` and `sh -e` scripts: a failing line fails the step, here too. */
function asShell(shell: string | null, run: string): string {
  const name = (shell ?? 'bash').split(/\s+/)[0] ?? 'bash';
  if (name === 'bash') return `set -eo pipefail\n${run}`;
  if (name === 'sh') return `sh -ec ${quote(run)}`;
  return `${name} -c ${quote(run)}`;
}

function quote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}
