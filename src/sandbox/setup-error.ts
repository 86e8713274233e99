import { SelfdebugError, type SelfdebugErrorOptions } from '../errors/index.js';
import type { PreparationReport, SettingNames, SetupCommand } from './environment.js';
import type { EgressRefusal } from './refusal-watch.js';
import type { ExecResult } from './sandbox.js';
import { OUTPUT_BAR } from './setup-output.js';

/** What a failed step leaves besides its result: its last lines (redacted) and a host it was refused over and over. */
export interface SetupFailureDetails {
  lastLines?: readonly string[];
  /** Set when the step was stopped because the proxy refused this target `count` times. */
  refused?: (EgressRefusal & { count: number }) | null;
}

/**
 * A setup command failed: the environment could not be prepared, so the
 * failure under test cannot be reproduced and no model attempt is spent.
 * Carries everything setup did, so the transcript shows it: the message
 * holds the step's last lines and the hosts it reached and was refused, as
 * plain text (a terminal and a log show it as is; the comment renders the
 * same facts as Markdown, see report/environment-summary.ts). It lives
 * beside the sandbox types it carries because errors/ imports no other folder.
 */
export class EnvironmentSetupError extends SelfdebugError {
  readonly step: SetupCommand;
  readonly result: ExecResult;
  readonly report: PreparationReport;
  readonly lastLines: readonly string[];
  readonly refused: (EgressRefusal & { count: number }) | null;
  /** The first paragraph of the message: what failed and what to change. */
  readonly summary: string;

  constructor(
    step: SetupCommand,
    result: ExecResult,
    report: PreparationReport,
    details: SetupFailureDetails = {},
    options: SelfdebugErrorOptions = {},
  ) {
    const summary = summaryOf(step, result, report, details.refused ?? null);
    const lines = details.lastLines ?? [];
    const output =
      lines.length > 0 ? [`Its last lines:`, ...lines.map((line) => `${OUTPUT_BAR}${line}`)] : [];
    super('environment-setup', [summary, ...output, ...egressFacts(report.egress)].join('\n'), options);
    this.step = step;
    this.result = result;
    this.report = report;
    this.lastLines = lines;
    this.refused = details.refused ?? null;
    this.summary = summary;
  }
}

function summaryOf(
  step: SetupCommand,
  result: ExecResult,
  report: PreparationReport,
  refused: (EgressRefusal & { count: number }) | null,
): string {
  const named = step.name ? `"${step.name}" (\`${step.command}\`)` : `\`${step.command}\``;
  if (refused)
    return (
      `The setup step ${named} was stopped: the setup proxy refused ${refused.target} ${refused.count} times ` +
      `(${refused.reason}), and retrying would only wait out the tool's retries. ${refused.advice} ` +
      `With \`selfdebug fix\`, pass --allow-host ${hostOf(refused.target)}; an operator lists it in SELFDEBUG_EGRESS_HOSTS.`
    );
  const refusedHosts = report.egress.filter((target) => !target.allowed).map((target) => target.target);
  const names = report.names ?? FILE_NAMES;
  const one = refusedHosts.length === 1;
  const advice =
    refusedHosts.length > 0
      ? `It was refused ${refusedHosts.join(', ')}: allow ${one ? 'that host' : 'those hosts'} (${names.hosts}) if setup needs ${one ? 'it' : 'them'}.`
      : `Fix the command (${names.setup}, or the workflow step it came from) or pick an image that has what it needs (${names.image}).`;
  return `The setup step ${named} failed (${result.reason ?? `exit code ${result.exitCode}`}). ${advice}`;
}

/** The repository file's keys: what advice names when the request does not say (the App, the Action). */
const FILE_NAMES: SettingNames = {
  image: 'sandbox.image in .github/selfdebug.yml',
  setup: '`setup` in .github/selfdebug.yml',
  hosts: 'sandbox.allowed_hosts in .github/selfdebug.yml',
  config: '.github/selfdebug.yml',
};

/** "Setup reached …; refused …", when setup went through the proxy at all. */
function egressFacts(egress: PreparationReport['egress']): string[] {
  if (egress.length === 0) return [];
  const reached = egress.filter((target) => target.allowed).map((target) => target.target);
  const refused = egress.filter((target) => !target.allowed).map((target) => target.target);
  return [
    `Hosts setup reached: ${reached.length > 0 ? reached.join(', ') : 'none'}; refused: ${refused.length > 0 ? refused.join(', ') : 'none'}.`,
  ];
}

function hostOf(target: string): string {
  return target.replace(/:\d+$/, '');
}
