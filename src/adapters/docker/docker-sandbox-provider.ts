import type Docker from 'dockerode';
import type { SandboxConfig } from '../../config/sandbox-config.js';
import type { SetupExtras } from '../../config/setup-extras.js';
import { RuntimeMissingError, WorkspaceFullError } from '../../errors/index.js';
import { credentialNotes } from '../../sandbox/credential-plan.js';
import type { EnvironmentRequest, PreparationReport } from '../../sandbox/environment.js';
import type { OpenSandboxRequest, Sandbox, SandboxProvider } from '../../sandbox/sandbox.js';
import { type Logger, silentLogger } from '../../util/logger.js';
import { containerSpec } from './container-spec.js';
import { createDockerClient, describeEndpoint } from './docker-endpoint.js';
import { DockerSandbox } from './docker-sandbox.js';
import { EnvironmentCache } from './environment-cache.js';
import { type EgressLookup, EnvironmentPreparer } from './environment-preparer.js';
import { ImageStore } from './image-store.js';
import { KEEPER_PATH } from './keeper.js';
import { mapDockerError } from './map-docker-error.js';
import { reapOrphanContainers } from './reaper.js';
import type { RegistryCredentials } from './registry-credentials.js';
import { checkSidecarImage } from './sidecar-check.js';
import { Sidecars } from './sidecars.js';
import { type ContainerNeeds, WarmContainer } from './warm-container.js';

/** Opens one locked-down container per job, in the environment the job asks for, and copies its workspace in. */
export class DockerSandboxProvider implements SandboxProvider {
  readonly kind = 'docker' as const;
  private readonly docker: Docker;
  private readonly endpoint: string;
  private readonly images: ImageStore;
  private readonly preparer: EnvironmentPreparer;
  private readonly cache: EnvironmentCache;
  private reaped: Promise<void> | undefined;
  private readonly readOnlyMounts: readonly string[];
  private readonly caCerts: SetupExtras['caCerts'];

  constructor(
    private readonly config: SandboxConfig,
    docker: Docker = createDockerClient(),
    private readonly logger: Logger = silentLogger,
    credentials: RegistryCredentials = new Map(),
    options: {
      egressLookup?: EgressLookup;
      /** Host folders mounted read-only at the same path in each job's container (the runner's tool cache). */
      readOnlyMounts?: readonly string[];
      /** The operator's setup variables, mirrors and certificates (SELFDEBUG_SETUP_ENV_FILE, SELFDEBUG_EXTRA_CA_CERTS). */
      setupExtras?: SetupExtras;
    } = {},
  ) {
    this.readOnlyMounts = options.readOnlyMounts ?? [];
    this.caCerts = options.setupExtras?.caCerts ?? null;
    this.docker = docker;
    this.endpoint = describeEndpoint(docker);
    this.images = new ImageStore(docker, this.endpoint, credentials);
    this.cache = new EnvironmentCache(
      docker,
      {
        entries: config.environmentCacheEntries,
        repositoryEntries: config.environmentCacheRepositoryEntries,
        gigabytes: config.environmentCacheGb,
        ...(config.environmentCacheDir ? { dir: config.environmentCacheDir } : {}),
      },
      logger,
    );
    this.preparer = new EnvironmentPreparer(
      docker,
      config,
      this.images,
      this.cache,
      this.endpoint,
      logger,
      options.egressLookup,
      options.setupExtras,
    );
  }

  async open(request: OpenSandboxRequest): Promise<Sandbox> {
    request.signal?.throwIfAborted();
    await this.reapOnce();
    const sidecars = new Sidecars(this.docker, this.config, request.jobId);
    const input = {
      jobId: request.jobId,
      environment: request.environment,
      workspace: Promise.resolve(request.workspace),
      ...(request.signal ? { signal: request.signal } : {}),
      onProgress: request.onProgress ?? (() => {}),
    };
    // Awaited by whoever copies it; this only keeps an early failure from counting as unhandled.
    input.workspace.catch(() => {});
    // An environment still being planned (from the checkout) most often asks for the operator's image alone.
    const warm =
      request.environment instanceof Promise ? this.warmUp(request.jobId, request.environment) : null;
    try {
      let prepared = await this.preparer.prepare(input, sidecars);
      try {
        return await this.start(request, prepared, sidecars, warm);
      } catch (error) {
        // A prepared environment that cannot start is broken: drop it and build it again, once.
        // One that does not fit the workspace would not fit when built again either.
        if (!prepared.report.reused || error instanceof WorkspaceFullError) throw error;
        this.logger.warn({ error: String(error) }, 'discarding a prepared environment that did not start');
        await this.cache.discard(prepared.report.reused.entry);
        await sidecars.removeAll();
        prepared = await this.preparer.prepare(input, sidecars);
        return await this.start(request, prepared, sidecars, null);
      }
    } catch (error) {
      await warm?.discard();
      await sidecars.removeAll();
      throw mapDockerError(error, { endpoint: this.endpoint, image: this.config.image });
    }
  }

  /** Starts the container the job most likely needs (see WarmContainer): the operator's image, nothing else. */
  private warmUp(jobId: string, planned: Promise<EnvironmentRequest>): WarmContainer {
    const needs = { image: this.config.image, prepared: false, networkMode: 'none' };
    return WarmContainer.start(this.docker, this.spec(jobId, needs), needs, planned);
  }

  /** The job's container as the environment needs it; the rest is the locked-down default. */
  private spec(jobId: string, needs: ContainerNeeds) {
    return containerSpec(this.config, jobId, {
      image: needs.image,
      networkMode: needs.networkMode,
      readOnlyMounts: this.readOnlyMounts,
      caCerts: this.caCerts,
      // After setup the image's own files are setup's: the keeper is the one the App wrote in.
      ...(needs.prepared ? { keeper: [KEEPER_PATH] } : {}),
    });
  }

  private async start(
    request: OpenSandboxRequest,
    prepared: { image: string; report: PreparationReport },
    sidecars: Sidecars,
    warm: WarmContainer | null,
  ): Promise<Sandbox> {
    const needs = {
      image: prepared.image,
      prepared: prepared.report.cacheKey !== null,
      networkMode: sidecars.networkMode,
    };
    const started = (await warm?.take(needs)) ?? null;
    const container = started ?? (await this.docker.createContainer(this.spec(request.jobId, needs)));
    const sandbox = new DockerSandbox(container, this.config, this.endpoint, {
      preparation: prepared.report,
      alongside: sidecars,
    });
    try {
      if (!started) await container.start();
      if (prepared.report.cacheKey) await sandbox.restorePrepared();
      const copied = await sandbox.copyIn(await request.workspace);
      const notes = [...prepared.report.notes, ...credentialNotes(copied.removed)];
      sandbox.preparation = { ...prepared.report, notes };
      request.signal?.throwIfAborted();
      return sandbox;
    } catch (error) {
      // The sidecars stay for a retry; the caller removes them if it gives up.
      await container.remove({ force: true, v: true }).catch(() => {});
      throw mapDockerError(error, {
        endpoint: this.endpoint,
        image: prepared.image,
        containerId: container.id,
      });
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

  /**
   * Creates, never starts, a container with a job's real spec and removes it
   * again: the engine judges every limit (memory, CPU, pids, the tmpfs
   * workspace volume, the runtime) the way it will for a job. For `doctor`.
   */
  async tryContainerSpec(): Promise<void> {
    const info = (await this.docker.info()) as { MemoryLimit?: boolean; PidsLimit?: boolean };
    const missing = [
      info.MemoryLimit === false ? 'memory limits' : '',
      info.PidsLimit === false ? 'pids limits' : '',
    ].filter(Boolean);
    if (missing.length > 0) throw new Error(`the engine reports no support for ${missing.join(' or ')}`);
    const container = await this.docker.createContainer(containerSpec(this.config, 'doctor'));
    await container.remove({ force: true, v: true });
  }

  /** For `doctor`: the image setup's forwarder and holder run from is there and has their tools. */
  checkSidecarImage(): Promise<string> {
    return checkSidecarImage(this.docker, this.images, this.config.sidecarImage ?? this.config.image);
  }

  /** Asks the engine whether it answers, has the image (pulling it if it can) and the runtime, for start-up checks. */
  async ping(onProgress?: (line: string) => void): Promise<void> {
    try {
      await this.docker.ping();
    } catch (error) {
      throw mapDockerError(error, { endpoint: this.endpoint, image: this.config.image });
    }
    await this.images.ensure(this.config.image, onProgress);
    if (this.config.runtime) {
      const info = (await this.docker.info()) as { Runtimes?: Record<string, unknown> };
      if (!(this.config.runtime in (info.Runtimes ?? {}))) throw new RuntimeMissingError(this.config.runtime);
    }
  }
}
