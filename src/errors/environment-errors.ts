import type { PreparationReport, SetupCommand } from '../sandbox/environment.js';
import type { ExecResult } from '../sandbox/sandbox.js';
import { SelfdebugError, type SelfdebugErrorOptions } from './selfdebug-error.js';

/**
 * A setup command failed: the environment could not be prepared, so the
 * failure under test cannot be reproduced and no model attempt is spent.
 * Carries everything setup did, so the transcript shows it.
 */
export class EnvironmentSetupError extends SelfdebugError {
  readonly step: SetupCommand;
  readonly result: ExecResult;
  readonly report: PreparationReport;
  constructor(
    step: SetupCommand,
    result: ExecResult,
    report: PreparationReport,
    options: SelfdebugErrorOptions = {},
  ) {
    const refused = report.egress.filter((target) => !target.allowed).map((target) => target.target);
    const how = result.reason ?? `exit code ${result.exitCode}`;
    const advice =
      refused.length > 0
        ? `It was refused ${refused.join(', ')}: add ${refused.length === 1 ? 'that host' : 'those hosts'} to sandbox.allowed_hosts in .github/selfdebug.yml if setup needs ${refused.length === 1 ? 'it' : 'them'}.`
        : 'Fix the command (setup in .github/selfdebug.yml, or the workflow step it came from) or pick an image that has what it needs (sandbox.image).';
    super(
      'environment-setup',
      `The setup step ${step.name ? `"${step.name}" (\`${step.command}\`)` : `\`${step.command}\``} failed (${how}). ${advice}`,
      options,
    );
    this.step = step;
    this.result = result;
    this.report = report;
  }
}

/** The prepared environment could not be saved (a full disk, most often). */
export class EnvironmentSnapshotError extends SelfdebugError {
  constructor(detail: string, options: SelfdebugErrorOptions = {}) {
    super(
      'environment-snapshot',
      `Saving the prepared environment failed: ${detail}. Free disk space on the Docker engine's host ` +
        '(`docker system df`), or lower SELFDEBUG_ENVIRONMENT_CACHE_GB so fewer prepared environments are kept, then retry.',
      { retryable: true, ...options },
    );
  }
}
