import { SelfdebugError, type SelfdebugErrorOptions } from '../errors/selfdebug-error.js';
import type { PreparationReport, SetupCommand } from './environment.js';
import type { ExecResult } from './sandbox.js';

/**
 * A setup command failed: the environment could not be prepared, so the
 * failure under test cannot be reproduced and no model attempt is spent.
 * Carries everything setup did, so the transcript shows it. It lives beside
 * the sandbox types it carries because errors/ imports no other folder.
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
