import type Docker from 'dockerode';
import type { EnvironmentRequest } from '../../sandbox/environment.js';

/** What the prepared environment asks the job's container to be. */
export interface ContainerNeeds {
  image: string;
  /** The prepared image's own keeper is needed (an environment from setup). */
  prepared: boolean;
  networkMode: string;
}

/**
 * The job's container in the operator's image, created and started while the
 * environment is still being planned from the checkout (the clone runs at
 * the same time). Most jobs ask for nothing else, and for them the clone and
 * the container's start overlap instead of following each other. It is only
 * an early start: preparation still checks and chooses the image as before,
 * and the container is taken only if it is exactly what that chose (the
 * operator's image, no setup, no network holder); otherwise it is removed,
 * as soon as the plan asks for more. Nothing of the job is in it until the
 * workspace is copied in.
 */
export class WarmContainer {
  private removal: Promise<void> | undefined;

  private constructor(
    private readonly started: Promise<Docker.Container | null>,
    private readonly fits: ContainerNeeds,
  ) {}

  static start(
    docker: Docker,
    spec: Docker.ContainerCreateOptions,
    fits: ContainerNeeds,
    planned: Promise<EnvironmentRequest>,
  ): WarmContainer {
    const started = docker.createContainer(spec).then(
      (container) =>
        container.start().then(
          () => container,
          // One that would not start is removed, and the job creates its own as it would have.
          () => container.remove({ force: true, v: true }).then(drop, drop),
        ),
      drop,
    );
    const warm = new WarmContainer(started, fits);
    // Not kept through a long setup: removed once the plan asks for more than the operator's image.
    planned.then(
      (environment) => (asksForMore(environment, fits.image) ? warm.discard() : undefined),
      () => warm.discard(),
    );
    return warm;
  }

  /** The started container if it is what the job needs, else null (and it is removed). */
  async take(needs: ContainerNeeds): Promise<Docker.Container | null> {
    const container = await this.started;
    const { image, prepared, networkMode } = this.fits;
    const fit = needs.image === image && needs.prepared === prepared && needs.networkMode === networkMode;
    if (fit && this.removal === undefined) return container;
    await this.discard();
    return null;
  }

  /** Removes the container, when the job does not take it or fails before it could; callers share one removal. */
  discard(): Promise<void> {
    this.removal ??= this.started.then((container) =>
      container?.remove({ force: true, v: true }).catch(() => {}),
    );
    return this.removal;
  }
}

function asksForMore(environment: EnvironmentRequest, image: string): boolean {
  const { setup, services } = environment;
  return setup.length > 0 || services.length > 0 || (environment.image ?? image) !== image;
}

function drop(): null {
  return null;
}
