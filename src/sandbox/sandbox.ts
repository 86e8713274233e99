import type { RemovedCredential } from './credential-plan.js';
import type { EnvironmentRequest, PreparationReport } from './environment.js';
import type { ExecResult } from './exec-result.js';

export type { ExecResult } from './exec-result.js';

/**
 * The Sandbox port: where a job's commands run. One sandbox per job, reused by
 * every command of the job, disposed at the end. Adapters: Docker (the real
 * one) and local child processes (development only).
 */

export interface ExecOptions {
  /** Kill the command's whole process tree after this many seconds (exit code 124). */
  timeoutSeconds?: number;
  /** Aborting kills the command's process tree (exit code 130); the sandbox stays usable. */
  signal?: AbortSignal;
  /** Extra environment variables; nothing from the host leaks in unless passed here. */
  env?: Record<string, string>;
  /** Working directory relative to the workspace root. */
  cwd?: string;
  /** Cap on captured bytes per stream; head and tail are kept and the cut is marked. */
  maxOutputBytes?: number;
  /** Each piece of output (either stream) as it arrives, for progress; the result still holds all of it. */
  onOutput?: (chunk: Buffer) => void;
}

export interface Sandbox {
  readonly kind: SandboxKind;
  /** How the environment was prepared (image, setup, cache, egress); null when nothing was asked of it. */
  readonly preparation: PreparationReport | null;
  /** Engine-side identifier (container id, or the temporary directory). */
  readonly id: string;
  /** The workspace root as commands see it. */
  readonly workdir: string;
  exec(command: string, options?: ExecOptions): Promise<ExecResult>;
  /**
   * A workspace file read as the sandbox user, or null when there is no such
   * regular file. `path` is relative to the workspace; links are followed only
   * while they stay inside it (one leading out is a WorkspacePathError).
   */
  readFile(path: string): Promise<WorkspaceFile | null>;
  /**
   * Writes a workspace file (and its folders) as the sandbox user. `path` is
   * relative to the workspace; a link inside it is written through, one leading
   * out is a WorkspacePathError.
   */
  writeFile(path: string, content: string | Buffer, mode?: number): Promise<void>;
  /**
   * Makes the sandbox workspace a copy of `hostDir` (files removed on the host go too), without the
   * credentials a runner leaves in a checkout (see CredentialPlan), which it lists.
   */
  copyIn(hostDir: string): Promise<CopyInReport>;
  /**
   * Makes `hostDir` a copy of the sandbox workspace, except what cannot be
   * written safely (devices, fifos, names or links leading out, `.git`), which
   * is left out and listed. The host's own `.git` stays as it was.
   */
  copyOut(hostDir: string): Promise<CopyOutReport>;
  /** Removes everything the sandbox holds. Safe to call more than once. */
  dispose(): Promise<void>;
}

/** An entry of the workspace that was not copied back, and why. */
export interface RefusedEntry {
  path: string;
  reason: string;
}

export interface CopyInReport {
  removed: RemovedCredential[];
}

export interface CopyOutReport {
  refused: RefusedEntry[];
}

export interface WorkspaceFile {
  content: Buffer;
  /** Permission bits, so rewriting a script keeps it executable. */
  mode: number;
  /** Where the content lives, relative to the workspace, when links inside it led there from `path`. */
  realPath?: string;
  /**
   * The symbolic link in the path's own place, at its real location, with its
   * target as stored (what git keeps of a link); its target stays inside.
   */
  symlink?: { path: string; target: string };
}

export const DEFAULT_FILE_MODE = 0o644;

type SandboxKind = 'docker' | 'local';

export interface OpenSandboxRequest {
  jobId: string;
  /**
   * A checkout on the host, copied into the sandbox when it opens. It may
   * still be in the making: the container starts meanwhile, and the copy
   * waits for it (the job clones while the engine creates the container).
   */
  workspace: string | Promise<string>;
  signal?: AbortSignal;
  /** The image, setup and services; without it the provider's image is used with nothing installed. */
  environment?: EnvironmentRequest | Promise<EnvironmentRequest>;
  /** Progress while the environment is prepared (pulls, setup commands), one line at a time. */
  onProgress?: (line: string) => void;
}

export interface SandboxProvider {
  readonly kind: SandboxKind;
  open(request: OpenSandboxRequest): Promise<Sandbox>;
}

/** Exit codes follow coreutils' `timeout` and the shell's SIGINT convention. */
export const TIMEOUT_EXIT_CODE = 124;
export const CANCELLED_EXIT_CODE = 130;
export const OOM_EXIT_CODE = 137;

export function timeoutReason(seconds: number): string {
  return `timed out after ${seconds} s`;
}

export const CANCELLED_REASON = 'cancelled';
export const OOM_REASON = 'killed: out of memory';
