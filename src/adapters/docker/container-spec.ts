import type { ContainerCreateOptions } from 'dockerode';
import type { SandboxConfig } from '../../config/sandbox-config.js';
import type { SetupExtras } from '../../config/setup-extras.js';
import { caEnvironment, caMounts } from './ca-trust.js';
import { containerLabels } from './labels.js';

/**
 * The container a job runs in. Everything here is the locked-down default:
 * no network (or only the loopback of the job's network holder, where its
 * services listen), no capabilities, no privilege escalation, a non-root user,
 * memory/CPU/pids limits, and a read-only root filesystem where only the
 * workspace and /tmp (tmpfs) can be written.
 *
 * The workspace is an anonymous volume of the engine's `local` driver mounted
 * as a sized tmpfs: a volume, so putArchive/getArchive reach it on any
 * engine; a tmpfs, so its size and file count are limits the kernel enforces
 * and a job can never fill the engine host's disk. Its pages are charged to
 * the container's memory, so the memory limit is raised by the workspace's
 * size: a full workspace still leaves the program all of `memoryMb`.
 */
export function containerSpec(
  config: SandboxConfig,
  jobId: string,
  options: {
    image?: string;
    networkMode?: string;
    readOnlyMounts?: readonly string[];
    /** The operator's certificates (SELFDEBUG_EXTRA_CA_CERTS), trusted in the loop as in setup. */
    caCerts?: SetupExtras['caCerts'];
    /** The keeper's command: a prepared image's own (see keeper.ts), else the image's `sleep`. */
    keeper?: string[];
  } = {},
): ContainerCreateOptions {
  const trust = caEnvironment(options.caCerts ?? null);
  const networkMode = config.network === 'host' ? 'host' : (options.networkMode ?? 'none');
  const memoryBytes = (config.memoryMb + config.workspaceMb) * 1024 * 1024;
  return {
    Image: options.image ?? config.image,
    name: containerName(jobId),
    Cmd: options.keeper ?? ['sleep', 'infinity'],
    Entrypoint: [],
    // Init and the keeper run as another uid than the commands, which run as `config.user` (DockerSandbox
    // execs with it): a command may ptrace processes of its own uid, and so could otherwise take over the
    // keeper, which the sweep after each command spares, and outlive its command.
    User: keeperUser(config.user),
    WorkingDir: config.workdir,
    // PATH is the image's own: toolchain images put their tools on it (/usr/local/go/bin, /usr/local/cargo/bin).
    Env: ['HOME=/tmp', 'LANG=C.UTF-8', ...Object.entries(trust).map(([name, value]) => `${name}=${value}`)],
    Labels: containerLabels(jobId),
    NetworkDisabled: networkMode === 'none',
    AttachStdin: false,
    AttachStdout: false,
    AttachStderr: false,
    Tty: false,
    HostConfig: {
      ...lockedDownHost(config, networkMode, memoryBytes),
      Mounts: [
        workspaceMount(config),
        ...(options.readOnlyMounts ?? []).map(readOnlyBind),
        ...caMounts(options.caCerts ?? null),
      ],
      ReadonlyRootfs: config.readOnlyRootFilesystem,
      AutoRemove: false,
      Privileged: false,
    },
  };
}

/**
 * What every container that runs a job's code shares (the job's own and its
 * setup's): no capabilities or privilege escalation, the given network only,
 * a small /tmp, memory, CPU and pids limits, and the operator's runtime.
 */
export function lockedDownHost(config: SandboxConfig, networkMode: string, memoryBytes: number) {
  return {
    NetworkMode: networkMode,
    CapDrop: ['ALL'],
    SecurityOpt: ['no-new-privileges:true'],
    Tmpfs: { '/tmp': `rw,nosuid,nodev,size=${config.tmpSizeMb}m,mode=1777` },
    Memory: memoryBytes,
    MemorySwap: memoryBytes,
    NanoCpus: Math.round(config.cpus * 1e9),
    PidsLimit: config.pidsLimit,
    Init: true,
    ...runtimeOf(config),
    IpcMode: 'private',
    LogConfig: { Type: 'none', Config: {} },
  };
}

/** nobody, unless the commands themselves run as nobody. */
function keeperUser(user: string): string {
  return user.split(':')[0] === '65534' ? '65533:65533' : '65534:65534';
}

/** The operator's OCI runtime (gVisor's runsc, Kata), for every container that runs a job's code. */
function runtimeOf(config: Pick<SandboxConfig, 'runtime'>): { Runtime?: string } {
  return config.runtime ? { Runtime: config.runtime } : {};
}

/**
 * Whether the runtime gives each container a network stack of its own. gVisor, registered with
 * `--network=none`, answers every socket call from its own user-space stack: a container under it that joins
 * the job's network holder (`container:<holder>`) still has only its own loopback, so it never sees the
 * forwarder's port or a service's. See docs/sandbox.md#gvisor.
 */
export function ownsItsLoopback(config: Pick<SandboxConfig, 'runtime'>): boolean {
  return config.runtime !== undefined && /runsc|gvisor/i.test(config.runtime);
}

/**
 * The runtime setup runs under: the operator's, unless that one keeps setup from the forwarder's loopback,
 * its only way to the proxy; then the engine's default (runc), with every other lock of `lockedDownHost`.
 */
export function setupRuntimeOf(config: SandboxConfig): SandboxConfig {
  return ownsItsLoopback(config) ? { ...config, runtime: undefined } : config;
}

/** Where the workspace lives: see the comment on containerSpec. */
export function workspaceMount(config: SandboxConfig) {
  const [uid = '1000', gid = uid] = config.user.split(':');
  const options = [
    `size=${config.workspaceMb}m`,
    `nr_inodes=${config.workspaceFiles}`,
    `uid=${uid}`,
    `gid=${gid}`,
    'mode=0755',
    'nosuid',
    'nodev',
  ];
  return {
    Type: 'volume' as const,
    // No name: the engine makes an anonymous volume, removed with the container.
    Source: '',
    Target: config.workdir,
    VolumeOptions: {
      // The engine copies the image's own workspace into a volume before mounting a tmpfs over it, which loses it.
      NoCopy: true,
      Labels: {},
      DriverConfig: { Name: 'local', Options: { type: 'tmpfs', device: 'tmpfs', o: options.join(',') } },
    },
  };
}

/**
 * A host folder at the same path inside, read-only: the GitHub Action mounts
 * the runner's tool cache so the toolchains its setup steps installed (whose
 * paths are on the job's PATH) are there for the commands, unchangeable.
 */
function readOnlyBind(path: string) {
  return { Type: 'bind' as const, Source: path, Target: path, ReadOnly: true };
}

/** Docker names allow [a-zA-Z0-9_.-]; a suffix keeps two opens of one job apart. */
export function containerName(jobId: string): string {
  const safe = jobId.replace(/[^a-zA-Z0-9_.-]/g, '-').slice(0, 60);
  return `selfdebug-${safe}-${Math.random().toString(36).slice(2, 8)}`;
}
