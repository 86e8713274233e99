/*
 * What one command in a sandbox produced. Its own file because both the
 * Sandbox port (sandbox.ts) and the environment's setup report
 * (environment.ts) carry it.
 */

/** How a command ended. `exited` covers every normal exit, whatever its code. */
export type ExecEnd = 'exited' | 'timed-out' | 'cancelled' | 'oom-killed';

export interface ExecResult {
  exitCode: number;
  end: ExecEnd;
  /** Why the command did not end on its own, e.g. 'timed out after 5 s'; null when it exited. */
  reason: string | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved in the order they arrived. */
  output: string;
  /** True when any of the three texts lost bytes to the output cap. */
  truncated: boolean;
  durationMs: number;
}
