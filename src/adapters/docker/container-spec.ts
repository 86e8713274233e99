import type { ContainerCreateOptions } from 'dockerode';
import type { SandboxConfig } from '../../config/sandbox-config.js';
import { containerLabels } from './labels.js';

/**
 * The container a job runs in. Everything here is the locked-down default:
 * no network (or only the loopback of the job's network holder, where its
 * services listen), no capabilities, no privilege escalation, a non-root user,
 * memory/CPU/pids limits, and a read-only root filesystem where only the
 * workspace (an anonymous volume, so putArchive/getArchive reach it on any
 * engine) and /tmp (tmpfs) can be written.
 */
export function containerSpec(
  config: SandboxConfig,
  jobId: string,
  options: { image?: string; networkMode?: string } = {},
): ContainerCreateOptions {
  const networkMode = config.network === 'host' ? 'host' : (options.networkMode ?? 'none');
  const memoryBytes = config.memoryMb * 1024 * 1024;
  return {
    Image: options.image ?? config.image,
    name: containerName(jobId),
    Cmd: ['sleep', 'infinity'],
    Entrypoint: [],
    User: config.user,
    WorkingDir: config.workdir,
    // PATH is the image's own: toolchain images put their tools on it (/usr/local/go/bin, /usr/local/cargo/bin).
    Env: ['HOME=/tmp', 'LANG=C.UTF-8'],
    Labels: containerLabels(jobId),
    NetworkDisabled: networkMode === 'none',
    AttachStdin: false,
    AttachStdout: false,
    AttachStderr: false,
    Tty: false,
    Volumes: { [config.workdir]: {} },
    HostConfig: {
      NetworkMode: networkMode,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges:true'],
      ReadonlyRootfs: config.readOnlyRootFilesystem,
      Tmpfs: { '/tmp': `rw,nosuid,nodev,size=${config.tmpSizeMb}m,mode=1777` },
      Memory: memoryBytes,
      MemorySwap: memoryBytes,
      NanoCpus: Math.round(config.cpus * 1e9),
      PidsLimit: config.pidsLimit,
      Init: true,
      AutoRemove: false,
      Privileged: false,
      IpcMode: 'private',
      LogConfig: { Type: 'none', Config: {} },
    },
  };
}

/** Docker names allow [a-zA-Z0-9_.-]; a suffix keeps two opens of one job apart. */
export function containerName(jobId: string): string {
  const safe = jobId.replace(/[^a-zA-Z0-9_.-]/g, '-').slice(0, 60);
  return `selfdebug-${safe}-${Math.random().toString(36).slice(2, 8)}`;
}
