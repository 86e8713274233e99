import type { ExecResult } from './exec-result.js';

/**
 * What a job's environment is made of, as the sandbox port sees it: the
 * image, the setup commands that install the toolchain and dependencies (the
 * only commands that reach a network, and only through the allowlisting
 * proxy), and the services the command talks to on localhost.
 */
export interface SetupCommand {
  command: string;
  /** Where the command came from, for the transcript (e.g. the workflow step's name). */
  name?: string;
  /** Relative to the workspace root. */
  cwd?: string;
  env?: Record<string, string>;
}

export interface ServiceSpec {
  name: string;
  image: string;
  env: Record<string, string>;
  /** Ports the command reaches on localhost; the sandbox waits until each one accepts connections. */
  ports: number[];
  /** The container's command, when not the image's own (workflows cannot set one; the App's tests do). */
  command?: string[];
}

/**
 * Whose prepared environments a job may read and write, the way GitHub
 * Actions scopes its cache: a tenant (an App installation, the Action, a
 * local user), a repository by its numeric id (a renamed or re-created
 * repository is another one), and a ref. A job reads entries of its own ref,
 * then of the default branch's; it writes only under its own ref, so a pull
 * request's branch never fills an entry the default branch or another ref reads.
 */
export interface CacheScope {
  /** `installation:<id>`, `actions`, `local:<user>`: never equal across doors. */
  tenant: string;
  repository: string;
  /** The full ref the job runs on (`refs/heads/feature`). */
  ref: string;
  /** The repository's default branch as a full ref. */
  defaultRef: string;
}

/**
 * How advice names the settings that chose the environment: the repository
 * file's keys for the App and the Action, the flags where `selfdebug fix` was
 * given them, so a failure tells each user what they can change.
 */
export interface SettingNames {
  image: string;
  setup: string;
  /** Where hosts for setup are allowed. */
  hosts: string;
  config: string;
}

export interface EnvironmentRequest {
  /** The base image; the provider's configured image when unset. */
  image?: string;
  setup: SetupCommand[];
  services: ServiceSpec[];
  /** Hosts setup may reach on top of the operator's list (already within the operator's ceiling). */
  allowedHosts: string[];
  /**
   * Content digests of every workspace file setup can read (path → sha256), for the cache key:
   * manifests, lockfiles, package-manager config, files the commands name, path dependencies,
   * `sandbox.cache_key_files` (see setupInputDigests).
   */
  lockfiles: Record<string, string>;
  /** Whose cache entries setup may reuse and fill; without one nothing is reused or saved. */
  cacheScope?: CacheScope;
  /** Lines for the transcript: where the environment came from, steps that could not be reproduced. */
  notes?: string[];
  /** Which settings chose this environment, for advice; the repository file's keys when unset. */
  names?: SettingNames;
}

/** One host setup reached or was refused. */
interface EgressTarget {
  target: string;
  allowed: boolean;
  reason: string | null;
  bytes: number;
  /** How many requests went this way (the proxy counts them; the sample of single requests is bounded). */
  requests?: number;
}

/** What preparing the environment did, for the transcript. */
export interface PreparationReport {
  image: string;
  imageId: string;
  pulled: boolean;
  /** Set when a prepared environment was reused and setup skipped. */
  reused: {
    key: string;
    builtAt: string;
    /** The cache entry (the key in its scope and ref) and the ref it was written for. */
    entry: string;
    ref: string;
  } | null;
  cacheKey: string | null;
  setup: { command: SetupCommand; result: ExecResult }[];
  egress: EgressTarget[];
  services: string[];
  /** Anything worth a line in the transcript (pull progress summary, cache notes). */
  notes: string[];
  /** The request's setting names, so a failed step's advice names what the user set. */
  names?: SettingNames;
}

export const NO_PREPARATION: PreparationReport = {
  image: '',
  imageId: '',
  pulled: false,
  reused: null,
  cacheKey: null,
  setup: [],
  egress: [],
  services: [],
  notes: [],
};
