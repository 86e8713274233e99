import {
  ContainerDiedError,
  EngineUnreachableError,
  ImageNotFoundError,
  RuntimeMissingError,
  SandboxError,
  SelfdebugError,
} from '../../errors/index.js';

/** The parts of docker-modem's errors we look at (it sets statusCode and the engine's JSON reply). */
interface EngineFailure {
  statusCode?: number;
  code?: string;
  json?: { message?: string } | null;
  reason?: string;
  message?: string;
}

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOENT',
  'EACCES',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EPIPE',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
]);

export interface DockerErrorContext {
  endpoint: string;
  image?: string;
  containerId?: string;
}

/** Turns an engine or transport failure into one of our typed errors. */
export function mapDockerError(error: unknown, context: DockerErrorContext): SelfdebugError {
  if (error instanceof SelfdebugError) return error;
  const failure = (error ?? {}) as EngineFailure;
  if (failure.code && UNREACHABLE_CODES.has(failure.code) && failure.statusCode === undefined) {
    return new EngineUnreachableError(context.endpoint, { cause: error });
  }
  const engineMessage = failure.json?.message ?? failure.reason ?? failure.message ?? String(error);
  const runtime = /unknown runtime specified:? (\S+)/i.exec(engineMessage);
  if (runtime) return new RuntimeMissingError(runtime[1]!, { cause: error });
  if (failure.statusCode === 404 && context.image && /image/i.test(engineMessage)) {
    return new ImageNotFoundError(context.image, { cause: error });
  }
  if ((failure.statusCode === 409 || failure.statusCode === 404) && context.containerId) {
    return new ContainerDiedError(context.containerId, engineMessage, { cause: error });
  }
  return new SandboxError(`The Docker engine refused a sandbox operation: ${engineMessage}`, {
    cause: error,
    retryable: (failure.statusCode ?? 0) >= 500,
  });
}
