import { SelfdebugError, type SelfdebugErrorOptions } from './selfdebug-error.js';

/** The Docker engine did not answer (socket missing, TLS failure, daemon down). */
export class EngineUnreachableError extends SelfdebugError {
  constructor(endpoint: string, options: SelfdebugErrorOptions = {}) {
    super(
      'engine-unreachable',
      `Cannot reach the Docker engine at ${endpoint}. Start dockerd (or Docker Desktop), or point ` +
        'DOCKER_HOST (and DOCKER_TLS_VERIFY/DOCKER_CERT_PATH for TLS) at a running engine; ' +
        'for development without Docker set SELFDEBUG_SANDBOX=local.',
      { retryable: true, ...options },
    );
  }
}

/** The sandbox image is neither on the engine nor in its registry. */
export class ImageNotFoundError extends SelfdebugError {
  readonly image: string;
  constructor(image: string, options: SelfdebugErrorOptions & { detail?: string } = {}) {
    super(
      'image-not-found',
      `The sandbox image "${image}" is not on the Docker engine${options.detail ? ` and could not be pulled (${options.detail})` : ''}. ` +
        'Check its name and tag (sandbox.image in .github/selfdebug.yml, or SELFDEBUG_SANDBOX_IMAGE); the default image is ' +
        'built with `npm run image` (offline, from the Debian mirror) or `docker build -t selfdebug-executor docker/executor`.',
      options,
    );
    this.image = image;
  }
}

/** Why a pull failed, as far as the engine's answer tells. */
export type PullFailure = 'unauthorized' | 'unreachable' | 'other';

/** The registry refused the pull or could not be reached. */
export class ImagePullError extends SelfdebugError {
  readonly image: string;
  readonly failure: PullFailure;
  constructor(image: string, failure: PullFailure, detail: string, options: SelfdebugErrorOptions = {}) {
    const advice = {
      unauthorized:
        'the registry refused the credentials (or none were given). Log the engine host in with `docker login REGISTRY` ' +
        "(the App reads Docker's config file) or set SELFDEBUG_REGISTRY_CREDENTIALS, then retry.",
      unreachable:
        "the registry could not be reached from the Docker engine. Check the engine host's network and proxy settings, " +
        'or pull the image there by hand (`docker pull`) and retry.',
      other:
        "retry the job; if it fails again, pull the image by hand (`docker pull`) to see the registry's answer.",
    }[failure];
    super('image-pull', `Pulling the sandbox image "${image}" failed: ${detail}. ${advice}`, {
      retryable: failure !== 'unauthorized',
      ...options,
    });
    this.image = image;
    this.failure = failure;
  }
}

/** The operator limits which images jobs may use, and this one is not among them. */
export class ImageNotAllowedError extends SelfdebugError {
  readonly image: string;
  constructor(image: string, allowed: readonly string[], options: SelfdebugErrorOptions = {}) {
    super(
      'image-not-allowed',
      `The image "${image}" is not allowed on this App (SELFDEBUG_ALLOWED_IMAGES: ${allowed.join(', ')}). ` +
        'Pick one of those for sandbox.image in .github/selfdebug.yml, or ask the operator to allow it.',
      options,
    );
    this.image = image;
  }
}

/**
 * The image is a prepared environment: another job's setup, possibly another
 * repository's. Prepared images are the cache's alone, whatever the operator's
 * image allowlist says.
 */
export class PreparedImageRefusedError extends SelfdebugError {
  readonly image: string;
  constructor(image: string, options: SelfdebugErrorOptions = {}) {
    super(
      'prepared-image-refused',
      `The image "${image}" is a prepared environment of selfdebug's cache, which no job may name as its image. ` +
        'Set sandbox.image in .github/selfdebug.yml to a base image (or leave it out) and list the install ' +
        'commands under setup: the App prepares and reuses the environment itself.',
      options,
    );
    this.image = image;
  }
}

/** The job's container stopped or vanished while the job still needed it. */
export class ContainerDiedError extends SelfdebugError {
  readonly containerId: string;
  readonly oomKilled: boolean;
  constructor(
    containerId: string,
    detail: string,
    options: SelfdebugErrorOptions & { oomKilled?: boolean } = {},
  ) {
    super(
      'container-died',
      `The sandbox container ${containerId.slice(0, 12)} is no longer running (${detail}). ` +
        'The job cannot continue in it; retry the job, and raise the memory limit ' +
        '(sandbox.memory_mb in .github/selfdebug.yml) if it was killed for memory.',
      { retryable: true, ...options },
    );
    this.containerId = containerId;
    this.oomKilled = options.oomKilled ?? false;
  }
}

/** Copying the workspace into or out of the sandbox failed. `hint` replaces the default advice when the cause is known. */
export class WorkspaceTransferError extends SelfdebugError {
  constructor(
    direction: 'in' | 'out',
    detail: string,
    options: SelfdebugErrorOptions & { hint?: string } = {},
  ) {
    const { hint = 'Check free disk space on the engine host and that the workspace path exists.', ...rest } =
      options;
    super(
      'workspace-transfer',
      `Copying the workspace ${direction === 'in' ? 'into' : 'out of'} the sandbox failed: ${detail}. ${hint}`,
      rest,
    );
  }
}

/** What a job brings into the workspace (its sources, what setup installed) is more than the workspace may hold. */
export class WorkspaceFullError extends SelfdebugError {
  constructor(what: string, limitMb: number, options: SelfdebugErrorOptions = {}) {
    super(
      'workspace-full',
      `${what} does not fit in the workspace, which holds at most ${limitMb} MB. Raise \`sandbox.workspace_mb\` ` +
        "in .github/selfdebug.yml (up to the App's SELFDEBUG_MAX_WORKSPACE_MB), or SELFDEBUG_SANDBOX_WORKSPACE_MB " +
        'where the sandbox is configured.',
      options,
    );
  }
}

/** The operator chose an OCI runtime the engine does not have. */
export class RuntimeMissingError extends SelfdebugError {
  constructor(runtime: string, options: SelfdebugErrorOptions = {}) {
    super(
      'runtime-missing',
      `The Docker engine has no runtime "${runtime}". Install it on the engine's host and register it under ` +
        '"runtimes" in /etc/docker/daemon.json (gVisor: `"runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ' +
        '["--network=none"]}`, or `runsc install -- --network=none`), then restart dockerd; or unset ' +
        'SELFDEBUG_SANDBOX_RUNTIME to use the default runtime. `docker info` lists the runtimes it has.',
      options,
    );
  }
}

/**
 * The job asks for services, but the operator's runtime gives the sandbox a loopback of its own (gVisor with
 * `--network=none`), where the services it shares a namespace with cannot be reached.
 */
export class ServicesNeedSharedLoopbackError extends SelfdebugError {
  constructor(runtime: string, services: readonly string[], options: SelfdebugErrorOptions = {}) {
    super(
      'services-need-shared-loopback',
      `This job asks for services (${services.join(', ')}), which the sandbox reaches on its loopback; under ` +
        `the runtime "${runtime}" (gVisor) every container has a network stack of its own, so the tests could ` +
        'not reach them. Run repositories that need services on an App or runner without ' +
        'SELFDEBUG_SANDBOX_RUNTIME, or remove `services` from .github/selfdebug.yml.',
      options,
    );
  }
}

/** Any other engine failure, with the engine's own words kept as the cause. */
export class SandboxError extends SelfdebugError {
  constructor(message: string, options: SelfdebugErrorOptions = {}) {
    super('sandbox', message, options);
  }
}

/**
 * Why a workspace path cannot be used. `invalid` is the shape of the path
 * itself (absolute, `..`, `.git`); the others are what the file system said,
 * mapped from its error codes by the sandbox adapters.
 */
export type WorkspacePathProblem =
  | 'invalid'
  | 'not-a-folder'
  | 'is-a-folder'
  | 'name-too-long'
  | 'permission-denied'
  | 'link-loop'
  | 'outside-link';

/**
 * A file path that is not a plain path inside the workspace, or one the file
 * system refuses. The message is read by the model (it names the path and
 * what is wrong with it), so a bad path costs an attempt, never the job.
 */
export class WorkspacePathError extends SelfdebugError {
  readonly path: string;
  readonly problem: WorkspacePathProblem;
  constructor(
    path: string,
    why: string,
    options: SelfdebugErrorOptions & { problem?: WorkspacePathProblem } = {},
  ) {
    super('workspace-path', `"${path}" is not a usable workspace path: ${why}.`, options);
    this.path = path;
    this.problem = options.problem ?? 'invalid';
  }
}

/** The longest name of one file or folder, and of a whole path, that Linux file systems accept (bytes). */
const MAX_NAME_BYTES = 255;
const MAX_PATH_BYTES = 4095;

/**
 * A WorkspacePathError for what the file system said, worded the same by
 * every sandbox. `blocker` is the part of the path that is a file where a
 * folder is needed, when the adapter could tell which one.
 */
export function workspacePathProblem(
  path: string,
  problem: Exclude<WorkspacePathProblem, 'invalid'>,
  options: SelfdebugErrorOptions & { blocker?: string } = {},
): WorkspacePathError {
  const why = {
    'not-a-folder': options.blocker
      ? `"${options.blocker}" is a file, not a folder, so nothing can be inside it`
      : 'a part of it is a file where a folder is needed',
    'is-a-folder': 'it is a folder, not a file; name a file inside it',
    'name-too-long': `a name in it is longer than the file system allows (${MAX_NAME_BYTES} bytes per name, ${MAX_PATH_BYTES} per path); use a shorter name`,
    'permission-denied': 'the sandbox is not allowed to read or write it (permission denied)',
    'link-loop': 'it goes through symbolic links that loop',
    'outside-link': `"${options.blocker ?? path}" leads out of the workspace through a symbolic link`,
  }[problem];
  return new WorkspacePathError(path, why, { cause: options.cause, problem });
}

/** Whether a (relative, normalised) path has a name or a length no Linux file system accepts. */
export function nameTooLong(path: string): boolean {
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) return true;
  return path.split('/').some((part) => Buffer.byteLength(part) > MAX_NAME_BYTES);
}
