import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import type { SandboxConfig } from '../../config/sandbox-config.js';
import { NO_SETUP_EXTRAS, type SetupExtras } from '../../config/setup-extras.js';
import { environmentKey } from '../../environment/environment-key.js';
import { checkImageAllowed } from '../../environment/image-policy.js';
import { ServicesNeedSharedLoopbackError } from '../../errors/index.js';
import { Redactor } from '../../report/index.js';
import type { CacheScope, EnvironmentRequest, PreparationReport } from '../../sandbox/environment.js';
import { type EgressRefusal, refusalSource } from '../../sandbox/refusal-watch.js';
import { runSetup, type SetupPart } from '../../sandbox/run-setup.js';
import type { Logger } from '../../util/logger.js';
import { EgressProxy } from '../proxy/egress-proxy.js';
import { caMounts } from './ca-trust.js';
import { containerName, lockedDownHost, ownsItsLoopback, setupRuntimeOf } from './container-spec.js';
import { DockerSandbox } from './docker-sandbox.js';
import type { EnvironmentCache } from './environment-cache.js';
import type { ImageStore } from './image-store.js';
import { installKeeper } from './keeper.js';
import { containerLabels } from './labels.js';
import { operatorEgress, setupCommandEnvironment, trustOperatorCertificates } from './operator-setup.js';
import { refusePrepared, unscoped } from './prepared-image.js';
import { PROXY_PORT, type Sidecars } from './sidecars.js';
import { stowPrepared } from './stow-prepared.js';

const NOTHING: EnvironmentRequest = { setup: [], services: [], allowedHosts: [], lockfiles: {} };
const SOCKET_NAME = 'proxy.sock';

/** Names the proxy resolves before asking DNS (null: ask DNS); how tests give a loopback stand-in a name. */
export type EgressLookup = (hostname: string) => string | null;

export interface PrepareInput {
  jobId: string;
  environment: EnvironmentRequest | Promise<EnvironmentRequest> | undefined;
  workspace: Promise<string>;
  signal?: AbortSignal;
  onProgress: (line: string) => void;
}

/**
 * Turns an environment request into the image the sandbox starts from:
 * pulls what is missing, starts the services, and either reuses a prepared
 * environment with the same key or runs setup in a container whose only
 * way out is the allowlisting proxy, then saves the result for next time.
 */
export class EnvironmentPreparer {
  constructor(
    private readonly docker: Docker,
    private readonly config: SandboxConfig,
    private readonly images: ImageStore,
    private readonly cache: EnvironmentCache,
    private readonly endpoint: string,
    private readonly logger: Logger,
    private readonly lookup?: EgressLookup,
    private readonly extras: SetupExtras = NO_SETUP_EXTRAS,
  ) {}

  async prepare(
    input: PrepareInput,
    sidecars: Sidecars,
  ): Promise<{ image: string; report: PreparationReport }> {
    const environment = (await input.environment) ?? NOTHING;
    const pulled = await this.pullBase(environment, input);
    // The holder and the forwarder run from the project's image, which the job's may not be.
    if (environment.services.length > 0 || environment.setup.length > 0)
      await this.images.ensure(sidecars.image, input.onProgress, input.signal);
    const services = await this.startServices(environment.services, input, sidecars);
    const started: PreparationReport = { ...pulled, services };
    if (environment.setup.length === 0) return { image: started.image, report: started };

    const key = environmentKey({
      baseImageId: started.imageId,
      setup: environment.setup,
      lockfiles: environment.lockfiles,
    });
    const keyed: PreparationReport = { ...started, cacheKey: key };
    const cached = await this.cache.lookup(environment.cacheScope, key);
    if (cached) {
      input.onProgress(
        `environment reused: key ${key.slice(0, 12)} of ${cached.ref}, built ${cached.builtAt}`,
      );
      const reused = { key, builtAt: cached.builtAt, entry: cached.entry, ref: cached.ref };
      return { image: cached.image, report: { ...keyed, reused } };
    }
    const scope = environment.cacheScope ?? unscoped();
    const built = await this.build({ scope, key }, environment, input, sidecars, keyed);
    return { image: built.image, report: { ...keyed, ...built.setup } };
  }

  /** The base image, pulled if missing: where the report starts. */
  private async pullBase(environment: EnvironmentRequest, input: PrepareInput): Promise<PreparationReport> {
    const base = environment.image ?? this.config.image;
    checkImageAllowed(base, this.config.allowedImages);
    const ensured = await this.images.ensure(base, input.onProgress, input.signal);
    await refusePrepared(this.docker, base);
    return {
      image: base,
      imageId: ensured.id,
      pulled: ensured.pulled,
      reused: null,
      cacheKey: null,
      setup: [],
      egress: [],
      services: [],
      notes: [...(environment.notes ?? []), ...(ensured.pulled ? [`pulled ${base}`] : [])],
      ...(environment.names ? { names: environment.names } : {}),
    };
  }

  /** Starts each service beside the sandbox; the names of those started. */
  private async startServices(
    services: EnvironmentRequest['services'],
    input: PrepareInput,
    sidecars: Sidecars,
  ): Promise<string[]> {
    if (services.length > 0 && ownsItsLoopback(this.config))
      throw new ServicesNeedSharedLoopbackError(
        this.config.runtime ?? '',
        services.map((service) => service.name),
      );
    const started: string[] = [];
    for (const service of services) {
      checkImageAllowed(service.image, this.config.allowedImages);
      await this.images.ensure(service.image, input.onProgress, input.signal);
      await refusePrepared(this.docker, service.image);
      input.onProgress(`starting service ${service.name} (${service.image})`);
      await sidecars.startService(service);
      started.push(service.name);
    }
    return started;
  }

  /** Runs setup behind the proxy, clears the sources out, and saves what is left as the key's image. */
  private async build(
    entry: { scope: CacheScope; key: string },
    environment: EnvironmentRequest,
    input: PrepareInput,
    sidecars: Sidecars,
    before: PreparationReport,
  ): Promise<{ image: string; setup: SetupPart }> {
    const base = before.image;
    const refusals = refusalSource(this.config.setupRefusalLimit);
    const { proxy, socketDir } = await this.startEgressProxy(environment.allowedHosts, refusals.emit);
    let container: Docker.Container | null = null;
    try {
      await sidecars.startForwarder(socketDir, SOCKET_NAME);
      container = await this.setupContainer(base, input.jobId, sidecars.networkMode);
      const setup = new DockerSandbox(container, this.config, this.endpoint, { user: '0:0' });
      const workspace = await input.workspace;
      await setup.copyIn(workspace);
      await trustOperatorCertificates(setup, this.extras);
      const ran = await runSetup(setup, environment.setup, before, {
        env: setupCommandEnvironment(this.extras, `http://127.0.0.1:${PROXY_PORT}`),
        timeoutSeconds: this.config.setupTimeoutSeconds,
        ...(input.signal ? { signal: input.signal } : {}),
        onProgress: input.onProgress,
        egress: () => egressTargets(proxy),
        refusals: refusals.source,
        redact: (text) => Redactor.none.redact(text),
      });
      await sidecars.stopForwarder();
      await stowPrepared(setup, workspace, this.config);
      // Nothing of setup may run on: stopped, then the App's keeper goes in over whatever setup left there.
      await container.stop({ t: 0 });
      await installKeeper(this.docker, container, base);
      const image = await this.saveEnvironment(container, entry.scope, entry.key);
      input.onProgress(`environment prepared: key ${entry.key.slice(0, 12)} for ${entry.scope.ref}`);
      return { image, setup: ran };
    } finally {
      await sidecars.stopForwarder();
      await container?.remove({ force: true, v: true }).catch(() => {});
      await proxy.close();
      await rm(socketDir, { recursive: true, force: true });
    }
  }

  /** The allowlisting proxy that is setup's only way out, listening on a socket in a folder of its own. */
  private async startEgressProxy(
    repositoryHosts: EnvironmentRequest['allowedHosts'],
    onRefusal: (refusal: EgressRefusal) => void,
  ): Promise<{ proxy: EgressProxy; socketDir: string }> {
    const socketDir = await mkdtemp(join(tmpdir(), 'selfdebug-egress-'));
    // The forwarder runs as uid 1000 and must reach the socket through its folder.
    await chmod(socketDir, 0o755);
    const proxy = await EgressProxy.start({
      socketPath: join(socketDir, SOCKET_NAME),
      policy: {
        ...operatorEgress(this.config, this.extras),
        // Kept apart: a repository's hosts never get the operator's trust in private addresses.
        repositoryHosts,
      },
      maxConnections: this.config.egressMaxConnections,
      ...(this.lookup ? { lookup: this.lookup } : {}),
      logger: this.logger,
      onRefusal,
    });
    return { proxy, socketDir };
  }

  /** Saves the set-up container as the key's image; old environments are evicted, and failing that only warns. */
  private async saveEnvironment(
    container: Docker.Container,
    scope: CacheScope,
    key: string,
  ): Promise<string> {
    const saved = await this.cache.save(container, scope, key, this.config.user);
    await this.cache
      .evict(saved.entry)
      .catch((error: unknown) =>
        this.logger.warn({ error: String(error) }, 'could not evict prepared environments'),
      );
    return saved.image;
  }

  /**
   * Setup installs system-wide (apt, pip, npm -g), so it runs as root, with
   * the few capabilities installers use and a writable root; raw sockets,
   * mounts and the rest stay dropped, and its only network is the proxy.
   * Under gVisor it runs on the engine's default runtime: the proxy is
   * reached through the forwarder's loopback, which gVisor hides from it.
   */
  private async setupContainer(image: string, jobId: string, networkMode: string): Promise<Docker.Container> {
    const memoryBytes = this.config.memoryMb * 1024 * 1024;
    const container = await this.docker.createContainer({
      Image: image,
      name: `${containerName(jobId)}-setup`,
      Cmd: ['sleep', 'infinity'],
      Entrypoint: [],
      User: '0:0',
      WorkingDir: this.config.workdir,
      Labels: containerLabels(jobId),
      NetworkDisabled: networkMode === 'none',
      HostConfig: {
        ...lockedDownHost(setupRuntimeOf(this.config), networkMode, memoryBytes),
        CapAdd: ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'SETUID', 'SETGID'],
        Mounts: caMounts(this.extras.caCerts),
      },
    });
    await container.start();
    return container;
  }
}

/** Each target once per outcome: how often it was reached, and how often refused with the latest reason. */
export function egressTargets(proxy: EgressProxy): PreparationReport['egress'] {
  return proxy
    .targets()
    .flatMap((tally) => [
      ...(tally.allowed > 0
        ? [{ target: tally.target, allowed: true, reason: null, bytes: tally.bytes, requests: tally.allowed }]
        : []),
      ...(tally.refused > 0
        ? [{ target: tally.target, allowed: false, reason: tally.reason, bytes: 0, requests: tally.refused }]
        : []),
    ]);
}
