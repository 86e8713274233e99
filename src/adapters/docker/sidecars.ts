import type Docker from 'dockerode';
import type { SandboxConfig } from '../../config/sandbox-config.js';
import { SandboxError } from '../../errors/index.js';
import type { ServiceSpec } from '../../sandbox/environment.js';
import { containerLabels } from './labels.js';

/** Where the forwarder listens inside the job's network namespace; setup's proxy URL points here. */
export const PROXY_PORT = 3128;
/** Where the forwarder sees the folder holding the proxy's Unix socket. */
const SOCKET_MOUNT = '/run/selfdebug-egress';

/**
 * The containers around a job's sandbox. Isolation comes from network
 * namespaces, not firewall rules: the holder is a network-`none` container
 * whose namespace (loopback only) the setup container, the services and the
 * sandbox join. During setup a forwarder in that namespace relays
 * 127.0.0.1:PROXY_PORT to the App's allowlisting proxy over a Unix socket;
 * it is removed before any of the model's commands run, after which nothing
 * in the namespace leads out.
 */
export class Sidecars {
  private holder: Docker.Container | null = null;
  private forwarder: Docker.Container | null = null;
  private readonly services: Docker.Container[] = [];

  constructor(
    private readonly docker: Docker,
    private readonly config: SandboxConfig,
    private readonly jobId: string,
  ) {}

  /** The project's image (SIDECAR_TOOLS), never the job's: an official image has no socat. */
  get image(): string {
    return this.config.sidecarImage ?? this.config.image;
  }

  /** `container:<holder>` once the holder runs, else `none`: the network every job container gets. */
  get networkMode(): string {
    return this.holder ? `container:${this.holder.id}` : 'none';
  }

  async startHolder(): Promise<void> {
    if (this.holder) return;
    this.holder = await this.run({
      Image: this.image,
      Cmd: ['sleep', 'infinity'],
      User: '65534:65534',
      HostConfig: { ...lockedDown(64), NetworkMode: 'none', ReadonlyRootfs: true },
    });
  }

  /** Relays 127.0.0.1:PROXY_PORT in the namespace to the proxy's socket in `socketDir` (bind-mounted read-only). */
  async startForwarder(socketDir: string, socketName: string): Promise<void> {
    await this.startHolder();
    const capacity = forwarderCapacity(this.config.egressMaxConnections);
    this.forwarder = await this.run({
      Image: this.image,
      Cmd: [
        'socat',
        `TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,fork,reuseaddr,max-children=${capacity.children}`,
        `UNIX-CONNECT:${SOCKET_MOUNT}/${socketName}`,
      ],
      User: '1000:1000',
      HostConfig: {
        ...lockedDown(capacity.memoryMb),
        PidsLimit: capacity.pids,
        NetworkMode: this.networkMode,
        ReadonlyRootfs: true,
        Binds: [`${socketDir}:${SOCKET_MOUNT}:ro`],
      },
    });
    await this.waitForPort(PROXY_PORT, 'the egress forwarder');
  }

  async stopForwarder(): Promise<void> {
    const forwarder = this.forwarder;
    this.forwarder = null;
    if (forwarder) await removeQuietly(forwarder);
  }

  async startService(service: ServiceSpec): Promise<void> {
    await this.startHolder();
    const container = await this.run({
      Image: service.image,
      ...(service.command ? { Cmd: service.command } : {}),
      Env: Object.entries(service.env).map(([name, value]) => `${name}=${value}`),
      HostConfig: {
        ...lockedDown(this.config.memoryMb),
        NetworkMode: this.networkMode,
        // Database images start as root and drop to their own user: they keep the capabilities that takes.
        CapAdd: ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'SETUID', 'SETGID'],
      },
    });
    this.services.push(container);
    for (const port of service.ports) await this.waitForPort(port, `the service "${service.name}"`);
  }

  async removeAll(): Promise<void> {
    const all = [this.forwarder, ...this.services.splice(0), this.holder];
    this.forwarder = null;
    this.holder = null;
    await Promise.all(all.map((container) => (container ? removeQuietly(container) : undefined)));
  }

  private async run(options: Docker.ContainerCreateOptions): Promise<Docker.Container> {
    const container = await this.docker.createContainer({
      ...options,
      Labels: containerLabels(this.jobId),
    });
    try {
      await container.start();
    } catch (error) {
      await removeQuietly(container);
      throw error;
    }
    return container;
  }

  /** Polls from inside the namespace with the sidecar image's own tools (SIDECAR_TOOLS) until the port accepts a connection. */
  private async waitForPort(port: number, what: string, timeoutSeconds = 60): Promise<void> {
    const exec = await this.holder!.exec({
      Cmd: ['sh', '-c', waitForPortScript(port, timeoutSeconds)],
      AttachStdout: true,
      AttachStderr: true,
    });
    const stream = await exec.start({ hijack: true, stdin: false });
    await new Promise<void>((resolve) => {
      stream.on('data', () => {});
      stream.once('end', resolve);
      stream.once('close', resolve);
      stream.once('error', () => resolve());
    });
    const info = await exec.inspect();
    if (info.ExitCode !== 0)
      throw new SandboxError(
        `${what} did not accept connections on localhost:${port} within ${timeoutSeconds} s; check its image and settings.`,
      );
  }
}

/**
 * How many connections the forwarder relays at once (socat forks a child
 * for each) and the pids that takes. It holds more than the proxy lets
 * open, so past the proxy's limit a request still reaches the proxy and is
 * refused with its reason; the margin covers connections being refused and
 * ones that have sent nothing yet. Past max-children socat stops accepting
 * until a child ends, rather than failing a fork against the pids limit.
 */
export function forwarderCapacity(maxConnections: number): {
  children: number;
  pids: number;
  memoryMb: number;
} {
  const children = maxConnections + 32;
  // socat itself, the init process, and room for a child that is exiting while the next forks;
  // a child's own pages are well under a megabyte, so a megabyte each is room to spare.
  return { children, pids: children + 8, memoryMb: 32 + children };
}

/** What the holder and the forwarder run, from the sidecar image; doctor checks the image has each. */
export const SIDECAR_TOOLS = ['sh', 'sleep', 'seq', 'socat'] as const;

/** A POSIX shell loop: `socat` connects and hangs up at once, so no bash (/dev/tcp) is needed. */
function waitForPortScript(port: number, timeoutSeconds: number): string {
  const probe = `socat -u OPEN:/dev/null TCP:127.0.0.1:${port}`;
  return `for i in $(seq ${timeoutSeconds * 5}); do ${probe} 2>/dev/null && exit 0; sleep 0.2; done; exit 1`;
}

/** The limits every sidecar shares with the sandbox: no capabilities, no new privileges, bounded. */
function lockedDown(memoryMb: number): Docker.HostConfig {
  const bytes = memoryMb * 1024 * 1024;
  return {
    CapDrop: ['ALL'],
    SecurityOpt: ['no-new-privileges:true'],
    Memory: bytes,
    MemorySwap: bytes,
    PidsLimit: 256,
    Init: true,
    IpcMode: 'private',
    LogConfig: { Type: 'none', Config: {} },
  };
}

async function removeQuietly(container: Docker.Container): Promise<void> {
  await container.remove({ force: true, v: true }).catch(() => {});
}
