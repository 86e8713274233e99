import type { PreparationReport, SetupCommand } from './environment.js';
import type { ExecOptions, ExecResult } from './sandbox.js';
import { EnvironmentSetupError } from './setup-error.js';

interface Runner {
  exec(command: string, options?: ExecOptions): Promise<ExecResult>;
}

export interface SetupOptions {
  /** Variables every setup command gets (the proxy's), under each step's own. */
  env?: Record<string, string>;
  timeoutSeconds?: number;
  signal?: AbortSignal;
  onProgress?: (line: string) => void;
  /** What the egress proxy saw so far, copied into the report when setup ends. */
  egress?: () => PreparationReport['egress'];
}

/**
 * Runs setup commands in order, recording each result in the report; the
 * first that fails stops setup with an EnvironmentSetupError carrying the
 * report, since nothing after it can be trusted to work.
 */
export async function runSetup(
  runner: Runner,
  commands: readonly SetupCommand[],
  report: PreparationReport,
  options: SetupOptions = {},
): Promise<void> {
  for (const step of commands) {
    options.onProgress?.(`setup: ${step.name ?? step.command}`);
    const result = await runner.exec(step.command, {
      env: { ...options.env, ...step.env },
      ...(step.cwd ? { cwd: step.cwd } : {}),
      ...(options.timeoutSeconds ? { timeoutSeconds: options.timeoutSeconds } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    report.setup.push({ command: step, result });
    options.onProgress?.(
      `setup: ${result.exitCode === 0 ? 'done' : (result.reason ?? `exit code ${result.exitCode}`)}`,
    );
    if (result.exitCode !== 0) {
      if (options.egress) report.egress = options.egress();
      throw new EnvironmentSetupError(step, result, report);
    }
  }
  if (options.egress) report.egress = options.egress();
}
