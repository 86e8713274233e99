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

export interface EnvironmentRequest {
  /** The base image; the provider's configured image when unset. */
  image?: string;
  setup: SetupCommand[];
  services: ServiceSpec[];
  /** Hosts setup may reach on top of the operator's list (already within the operator's ceiling). */
  allowedHosts: string[];
  /** Content digests of the manifests and lockfiles setup reads (path → sha256), for the cache key. */
  lockfiles: Record<string, string>;
  /** Lines for the transcript: where the environment came from, steps that could not be reproduced. */
  notes?: string[];
}

/** One host setup reached or was refused. */
export interface EgressTarget {
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
  reused: { key: string; builtAt: string } | null;
  cacheKey: string | null;
  setup: { command: SetupCommand; result: ExecResult }[];
  egress: EgressTarget[];
  services: string[];
  /** Anything worth a line in the transcript (pull progress summary, cache notes). */
  notes: string[];
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
