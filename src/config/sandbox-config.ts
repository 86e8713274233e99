import { z } from 'zod';
import { DEFAULT_MAX_OUTPUT_BYTES } from '../sandbox/output-recorder.js';
import { toolchainImagesSchema } from './toolchain-images-setting.js';

/** A list written in one environment variable: comma- or whitespace-separated. */
const listSchema = z.preprocess(
  (value) => (typeof value === 'string' ? value.split(/[\s,]+/).filter(Boolean) : value),
  z.array(z.string().min(1)),
);

/** Ports written in one environment variable, like a list. */
const portListSchema = z.preprocess(
  (value) =>
    typeof value === 'string'
      ? value
          .split(/[\s,]+/)
          .filter(Boolean)
          .map(Number)
      : value,
  z.array(z.int().min(1).max(65_535)).min(1),
);

/**
 * Sandbox limits. The defaults are the safe ones for untrusted code; every
 * value can be overridden, but loosening `network` is the operator's call.
 */
export const sandboxConfigSchema = z.object({
  kind: z.enum(['docker', 'local']).default('docker'),
  image: z.string().min(1).default('selfdebug-executor:latest'),
  /** uid:gid inside the container; never root. */
  user: z
    .string()
    .regex(/^\d+(:\d+)?$/, 'must be a numeric uid or uid:gid, e.g. "1000:1000"')
    .refine((value) => !/^0(:|$)/.test(value), 'must not be root (uid 0)')
    .default('1000:1000'),
  workdir: z.string().startsWith('/').default('/workspace'),
  network: z.enum(['none', 'host']).default('none'),
  memoryMb: z.int().min(16).max(1_048_576).default(2048),
  cpus: z.number().positive().max(256).default(1),
  pidsLimit: z.int().min(8).max(1_000_000).default(512),
  readOnlyRootFilesystem: z.boolean().default(true),
  tmpSizeMb: z.int().min(1).max(1_048_576).default(512),
  /**
   * Most the workspace may hold, in MB. The engine enforces it (the workspace
   * is a sized tmpfs volume, see docs/sandbox.md): past it, writes fail with
   * "No space left on device" and the engine host's disk is never touched.
   */
  workspaceMb: z.int().min(16).max(1_048_576).default(2048),
  /** Most files and folders the workspace may hold (the tmpfs inode count). */
  workspaceFiles: z.int().min(1024).max(100_000_000).default(500_000),
  commandTimeoutSeconds: z.number().positive().max(86_400).default(600),
  maxOutputBytes: z.int().min(1024).default(DEFAULT_MAX_OUTPUT_BYTES),
  /**
   * The engine's OCI runtime for job containers (`runsc` for gVisor, `kata`; under gVisor setup stays on runc):
   * a second wall between the code and the kernel, where the operator has
   * installed one. Unset: the engine's default (runc).
   */
  runtime: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'must be a runtime name the engine lists, e.g. "runsc"')
    .optional(),
  /** Largest workspace copied back out of a container, so a runaway job cannot fill the host disk. */
  maxCopyOutMb: z.int().min(1).default(2048),
  /** Most files, folders and links copied back out of a container, so tiny files cannot use up the host's inodes. */
  maxCopyOutFiles: z.int().min(1).default(500_000),
  /** Image globs jobs may use (`node:*`, `ghcr.io/my-org/**`); empty allows every image. */
  allowedImages: listSchema.default([]),
  /** The image for each derived toolchain (`node:20=mirror/node:20`); unnamed ones use the official images. */
  toolchainImages: toolchainImagesSchema.default({}),
  /**
   * Image of the network-holder and proxy-forwarder sidecars: one the project
   * controls, with sh, sleep, seq and socat. Default: the operator's `image`
   * (fixed when the settings are read, before a job's image replaces it).
   */
  sidecarImage: z.string().min(1).optional(),
  /** Hosts setup may reach through the proxy (globs); empty means the public package registries. */
  egressHosts: listSchema.default([]),
  /** Hosts the operator trusts to resolve to private or loopback addresses (a registry mirror on the LAN). */
  egressTrustedHosts: listSchema.default([]),
  /**
   * A PEM bundle of certificate authorities every job container trusts (a
   * TLS-inspecting proxy's, a private registry's): mounted read-only and
   * named by NODE_EXTRA_CA_CERTS, SSL_CERT_FILE and the like.
   */
  extraCaCerts: z.string().min(1).optional(),
  /** KEY=VALUE lines set in setup's commands only (a registry mirror, its token); redacted, never in the loop. */
  setupEnvFile: z.string().min(1).optional(),
  /**
   * Ports setup may open a CONNECT tunnel to (each tunnel must carry TLS naming its host); a host must
   * still be allowed on the port. Plain HTTP needs none: it goes to the proxy by absolute URI.
   */
  egressTlsPorts: portListSchema.default([443]),
  /**
   * Most connections setup may hold open through the proxy at once; a request past it is refused with
   * the reason. The forwarder is sized above it (socat's max-children, its pids limit), so the proxy,
   * not the forwarder, is what says no.
   */
  egressMaxConnections: z.int().min(1).max(4096).default(128),
  /** Time limit of each setup command. */
  setupTimeoutSeconds: z.number().positive().max(86_400).default(1800),
  /**
   * A setup step the proxy refuses the same host this many times is stopped
   * at once, naming the host, instead of waiting out the tool's retries.
   */
  setupRefusalLimit: z.int().min(1).max(10_000).default(5),
  /** Prepared environments kept on the engine (least recently used go first). */
  environmentCacheEntries: z.int().min(0).max(10_000).default(20),
  /** Of those, most kept for any one repository (its least recently used go first). */
  environmentCacheRepositoryEntries: z.int().min(1).max(10_000).default(5),
  /** Most disk the prepared environments may take, in GB. */
  environmentCacheGb: z.number().min(0).default(20),
  /** Where the cache keeps its index (last use of each prepared image). */
  environmentCacheDir: z.string().min(1).optional(),
});

export type SandboxConfig = z.infer<typeof sandboxConfigSchema>;
export type SandboxConfigInput = z.input<typeof sandboxConfigSchema>;

/** Environment variable for each setting; unset variables keep the default. */
export const sandboxEnvironment = {
  kind: ['SELFDEBUG_SANDBOX'],
  image: ['SELFDEBUG_SANDBOX_IMAGE'],
  user: ['SELFDEBUG_SANDBOX_USER'],
  workdir: ['SELFDEBUG_SANDBOX_WORKDIR'],
  network: ['SELFDEBUG_SANDBOX_NETWORK'],
  memoryMb: ['SELFDEBUG_SANDBOX_MEMORY_MB'],
  cpus: ['SELFDEBUG_SANDBOX_CPUS'],
  pidsLimit: ['SELFDEBUG_SANDBOX_PIDS_LIMIT'],
  readOnlyRootFilesystem: ['SELFDEBUG_SANDBOX_READ_ONLY_ROOT'],
  tmpSizeMb: ['SELFDEBUG_SANDBOX_TMP_MB'],
  workspaceMb: ['SELFDEBUG_SANDBOX_WORKSPACE_MB'],
  workspaceFiles: ['SELFDEBUG_SANDBOX_WORKSPACE_FILES'],
  commandTimeoutSeconds: ['SELFDEBUG_SANDBOX_TIMEOUT_SECONDS'],
  maxOutputBytes: ['SELFDEBUG_SANDBOX_MAX_OUTPUT_BYTES'],
  runtime: ['SELFDEBUG_SANDBOX_RUNTIME'],
  maxCopyOutMb: ['SELFDEBUG_SANDBOX_MAX_COPY_OUT_MB'],
  maxCopyOutFiles: ['SELFDEBUG_SANDBOX_MAX_COPY_OUT_FILES'],
  allowedImages: ['SELFDEBUG_ALLOWED_IMAGES'],
  toolchainImages: ['SELFDEBUG_TOOLCHAIN_IMAGES'],
  sidecarImage: ['SELFDEBUG_SIDECAR_IMAGE'],
  egressHosts: ['SELFDEBUG_EGRESS_HOSTS'],
  egressTrustedHosts: ['SELFDEBUG_EGRESS_TRUSTED_HOSTS'],
  extraCaCerts: ['SELFDEBUG_EXTRA_CA_CERTS'],
  setupEnvFile: ['SELFDEBUG_SETUP_ENV_FILE'],
  egressTlsPorts: ['SELFDEBUG_EGRESS_TLS_PORTS'],
  egressMaxConnections: ['SELFDEBUG_EGRESS_MAX_CONNECTIONS'],
  setupTimeoutSeconds: ['SELFDEBUG_SETUP_TIMEOUT_SECONDS'],
  setupRefusalLimit: ['SELFDEBUG_SETUP_REFUSAL_LIMIT'],
  environmentCacheEntries: ['SELFDEBUG_ENVIRONMENT_CACHE_ENTRIES'],
  environmentCacheRepositoryEntries: ['SELFDEBUG_ENVIRONMENT_CACHE_REPOSITORY_ENTRIES'],
  environmentCacheGb: ['SELFDEBUG_ENVIRONMENT_CACHE_GB'],
  environmentCacheDir: ['SELFDEBUG_ENVIRONMENT_CACHE_DIR'],
} as const satisfies Record<keyof SandboxConfig, readonly string[]>;
