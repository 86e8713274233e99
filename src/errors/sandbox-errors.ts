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

/** The configured sandbox image is not present on the engine. */
export class ImageNotFoundError extends SelfdebugError {
  readonly image: string;
  constructor(image: string, options: SelfdebugErrorOptions = {}) {
    super(
      'image-not-found',
      `The sandbox image "${image}" is not on the Docker engine. Build it with ` +
        '`docker build -t selfdebug-executor docker/executor` (or `npm run image:test` offline), ' +
        'or set SELFDEBUG_SANDBOX_IMAGE to an image the engine has.',
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

/** Copying the workspace into or out of the sandbox failed. */
export class WorkspaceTransferError extends SelfdebugError {
  constructor(direction: 'in' | 'out', detail: string, options: SelfdebugErrorOptions = {}) {
    super(
      'workspace-transfer',
      `Copying the workspace ${direction === 'in' ? 'into' : 'out of'} the sandbox failed: ${detail}. ` +
        'Check free disk space on the engine host and that the workspace path exists.',
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

/** A file path that is not a plain path inside the workspace. */
export class WorkspacePathError extends SelfdebugError {
  readonly path: string;
  constructor(path: string, why: string, options: SelfdebugErrorOptions = {}) {
    super('workspace-path', `"${path}" is not a usable workspace path: ${why}.`, options);
    this.path = path;
  }
}
