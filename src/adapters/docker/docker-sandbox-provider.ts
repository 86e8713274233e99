import type Docker from 'dockerode';
import type { SandboxConfig } from '../../config/sandbox-config.js';
import type { OpenSandboxRequest, Sandbox, SandboxProvider } from '../../sandbox/sandbox.js';
import { type Logger, silentLogger } from '../../util/logger.js';
import { containerSpec } from './container-spec.js';
import { createDockerClient, describeEndpoint } from './docker-endpoint.js';
import { DockerSandbox } from './docker-sandbox.js';
import { mapDockerError } from './map-docker-error.js';
import { reapOrphanContainers } from './reaper.js';

/** Opens one locked-down container per job and copies the job's workspace into it. */
export class DockerSandboxProvider implements SandboxProvider {
  readonly kind = 'docker' as const;
  private readonly docker: Docker;
  private readonly endpoint: string;
  private reaped: Promise<void> | undefined;

  constructor(
    private readonly config: SandboxConfig,
    docker: Docker = createDockerClient(),
    private readonly logger: Logger = silentLogger,
  ) {
    this.docker = docker;
    this.endpoint = describeEndpoint(docker);
  }

  async open(request: OpenSandboxRequest): Promise<Sandbox> {
    request.signal?.throwIfAborted();
    await this.reapOnce();
    const context = { endpoint: this.endpoint, image: this.config.image };
    let container: Docker.Container;
    try {
      container = await this.docker.createContainer(containerSpec(this.config, request.jobId));
    } catch (error) {
      throw mapDockerError(error, context);
    }
    const sandbox = new DockerSandbox(container, this.config, this.endpoint);
    try {
      await container.start();
      await sandbox.copyIn(await request.workspace);
      request.signal?.throwIfAborted();
      return sandbox;
    } catch (error) {
      await sandbox.dispose().catch(() => {});
      throw mapDockerError(error, { ...context, containerId: container.id });
    }
  }

  /**
   * The first open of a process sweeps up containers that crashed processes
   * left behind, so every entry point (App, worker, CLI) reaps at start-up
   * without having to remember to. A failed sweep never blocks a job.
   */
  private reapOnce(): Promise<void> {
    this.reaped ??= reapOrphanContainers(this.docker).then(
      (removed) => {
        if (removed.length > 0)
          this.logger.info({ removed }, 'removed sandbox containers left by stopped processes');
      },
      (error: unknown) =>
        this.logger.warn({ error: String(error) }, 'could not sweep leftover sandbox containers'),
    );
    return this.reaped;
  }

  /** Asks the engine whether it answers and has the image, for start-up checks. */
  async ping(): Promise<void> {
    try {
      await this.docker.ping();
      await this.docker.getImage(this.config.image).inspect();
    } catch (error) {
      throw mapDockerError(error, { endpoint: this.endpoint, image: this.config.image });
    }
  }
}
