import type { PreparationReport } from '../sandbox/environment.js';
import { codeBlock, sanitizeProse } from './sanitize.js';

/** What a comment shows of a failed setup step (an EnvironmentSetupError's fields). */
export interface SetupFailure {
  /** What failed and what to change, one paragraph. */
  summary: string;
  /** The step's last lines, already redacted. */
  lastLines: readonly string[];
  report: PreparationReport;
}

/**
 * A failed setup step for a comment or a check run: what failed and what to
 * change, the step's last lines in a block nothing can break out of, and the
 * hosts setup reached and was refused. The CLI and the log show the same
 * facts as the error's plain message.
 */
export function setupFailureMarkdown(failure: SetupFailure): string {
  const parts = [sanitizeProse(failure.summary)];
  if (failure.lastLines.length > 0)
    parts.push('Its last lines:', codeBlock(failure.lastLines.join('\n'), 'text'));
  const egress = egressLine(failure.report.egress);
  if (egress) parts.push(sanitizeProse(`${egress[0]!.toUpperCase()}${egress.slice(1)}.`));
  return parts.join('\n\n');
}

/**
 * What preparing the environment did, in plain sentences: the image (and
 * whether it was pulled), a reused prepared environment and its age, the
 * hosts setup reached or was refused, the services. The status comment and
 * the CLI print the same lines.
 */
export function environmentLines(report: PreparationReport, now: Date = new Date()): string[] {
  const lines: string[] = [];
  if (report.image) lines.push(`image ${report.image}${report.pulled ? ' (pulled)' : ''}`);
  if (report.reused) {
    const age = ageOf(report.reused.builtAt, now);
    lines.push(`environment reused: key ${report.reused.key.slice(0, 12)}, built ${age}; setup skipped`);
  } else if (report.cacheKey) {
    lines.push(`environment prepared and saved: key ${report.cacheKey.slice(0, 12)}`);
  }
  const egress = egressLine(report.egress);
  if (egress) lines.push(egress);
  if (report.services.length > 0) lines.push(`services on localhost: ${report.services.join(', ')}`);
  lines.push(...report.notes.filter((note) => !note.startsWith('pulled ')));
  return lines;
}

/** "setup reached 3 hosts; refused 1: example.org:443 — add it to sandbox.allowed_hosts if it is needed". */
export function egressLine(egress: PreparationReport['egress']): string | null {
  if (egress.length === 0) return null;
  const reached = egress.filter((target) => target.allowed);
  const refused = egress.filter((target) => !target.allowed);
  const parts = [`setup reached ${reached.length} ${reached.length === 1 ? 'host' : 'hosts'}`];
  if (refused.length > 0) {
    const names = refused.map((target) => target.target).join(', ');
    parts.push(
      `refused ${refused.length}: ${names} — add ${refused.length === 1 ? 'it' : 'them'} to sandbox.allowed_hosts if ${refused.length === 1 ? 'it is' : 'they are'} needed`,
    );
  }
  return parts.join('; ');
}

function ageOf(iso: string, now: Date): string {
  const minutes = Math.max(0, Math.round((now.getTime() - Date.parse(iso)) / 60_000));
  if (!Number.isFinite(minutes)) return 'earlier';
  if (minutes < 1) return 'just now';
  if (minutes < 120) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.round(hours / 24)} days ago`;
}
