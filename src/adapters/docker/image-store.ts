import type Docker from 'dockerode';
import { ImageNotFoundError, ImagePullError, type PullFailure, SelfdebugError } from '../../errors/index.js';
import { mapDockerError } from './map-docker-error.js';
import { type RegistryCredentials, registryOf } from './registry-credentials.js';

/** A line of pull progress, already worded for a log or a terminal. */
export type PullProgress = (line: string) => void;

export interface EnsuredImage {
  /** The engine's image id (`sha256:…`, the digest of its configuration): what a cache key may trust. */
  id: string;
  pulled: boolean;
}

interface PullEvent {
  status?: string;
  id?: string;
  progress?: string;
  error?: string;
  errorDetail?: { message?: string };
}

/**
 * Images on the engine: present ones are used as they are, missing ones are
 * pulled with the operator's registry credentials, and the engine's errors
 * become ours (not found, unauthorized, unreachable) with what to do.
 */
export class ImageStore {
  constructor(
    private readonly docker: Docker,
    private readonly endpoint: string,
    private readonly credentials: RegistryCredentials = new Map(),
  ) {}

  async ensure(
    image: string,
    onProgress: PullProgress = () => {},
    signal?: AbortSignal,
  ): Promise<EnsuredImage> {
    const present = await this.inspect(image);
    if (present) return { id: present.Id, pulled: false };
    await this.pull(image, onProgress, signal);
    const pulled = await this.inspect(image);
    if (!pulled)
      throw new ImageNotFoundError(image, { detail: 'the engine reported a pull but has no such image' });
    return { id: pulled.Id, pulled: true };
  }

  async inspect(image: string): Promise<Docker.ImageInspectInfo | null> {
    try {
      return await this.docker.getImage(image).inspect();
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) return null;
      throw mapDockerError(error, { endpoint: this.endpoint, image });
    }
  }

  private async pull(image: string, onProgress: PullProgress, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const auth = this.credentials.get(registryOf(image));
    onProgress(`pulling ${image}${auth ? ` (as ${auth.username ?? 'token'} on ${auth.serveraddress})` : ''}`);
    let stream: NodeJS.ReadableStream;
    try {
      stream = await this.docker.pull(
        image,
        auth ? { authconfig: auth, abortSignal: signal } : { abortSignal: signal },
      );
    } catch (error) {
      throw pullError(image, error, this.endpoint);
    }
    const layers = new Map<string, string>();
    await new Promise<void>((resolve, reject) => {
      this.docker.modem.followProgress(
        stream,
        (error: unknown) => (error ? reject(pullError(image, error, this.endpoint)) : resolve()),
        (event: PullEvent) => {
          if (event.error) return;
          const line = progressLine(event, layers);
          if (line) onProgress(line);
        },
      );
    });
    onProgress(`pulled ${image}`);
  }
}

/** One line per layer state change ("a1b2c3: Download complete"), not one per byte count. */
function progressLine(event: PullEvent, layers: Map<string, string>): string | null {
  if (!event.status) return null;
  if (!event.id) return event.status;
  if (layers.get(event.id) === event.status) return null;
  layers.set(event.id, event.status);
  return `${event.id}: ${event.status}`;
}

/**
 * The engine answers a failed pull with a status code (before the stream) or
 * an error event (inside it); both carry the registry's words, which are the
 * only place the cause is told apart, so they are read here at the edge.
 */
export function pullError(image: string, error: unknown, endpoint: string): SelfdebugError {
  if (error instanceof SelfdebugError) return error;
  const failure = error as {
    statusCode?: number;
    json?: { message?: string };
    message?: string;
    code?: string;
  };
  if (failure.code === 'ECONNREFUSED' || failure.code === 'ENOENT')
    return mapDockerError(error, { endpoint, image });
  const detail = (failure.json?.message ?? failure.message ?? String(error)).trim();
  if (
    /manifest unknown|not found|does not exist|no such image|name unknown/i.test(detail) &&
    !/denied/i.test(detail)
  )
    return new ImageNotFoundError(image, { cause: error, detail });
  return new ImagePullError(image, pullFailure(failure.statusCode, detail), detail, { cause: error });
}

function pullFailure(status: number | undefined, detail: string): PullFailure {
  if (
    status === 401 ||
    status === 403 ||
    /unauthorized|denied|authentication required|no basic auth/i.test(detail)
  )
    return 'unauthorized';
  if (
    /connection refused|no such host|i\/o timeout|timeout|dial tcp|network is unreachable|server misbehaving|tls/i.test(
      detail,
    )
  )
    return 'unreachable';
  return 'other';
}
