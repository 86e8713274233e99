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

/** Refusals the repository's allowlist can lift (the proxy's reasons for a host or port it does not list). */
const ALLOWLIST_REFUSAL = /is not on the allowlist|is not allowed for/;

/**
 * "setup reached 3 hosts; refused 1: example.org:443 — add it to sandbox.allowed_hosts if it is needed",
 * and each refusal the allowlist cannot lift (a tunnel closed for its SNI, the connection limit) with its reason.
 */
function egressLine(egress: PreparationReport['egress']): string | null {
  if (egress.length === 0) return null;
  const reached = egress.filter((target) => target.allowed);
  const refused = egress.filter((target) => !target.allowed);
  const listable = refused.filter((target) => !target.reason || ALLOWLIST_REFUSAL.test(target.reason));
  const other = refused.filter((target) => !listable.includes(target));
  const parts = [`setup reached ${reached.length} ${reached.length === 1 ? 'host' : 'hosts'}`];
  if (listable.length > 0) {
    const names = listable.map((target) => target.target).join(', ');
    const one = listable.length === 1;
    parts.push(
      `refused ${listable.length}: ${names} — add ${one ? 'it' : 'them'} to sandbox.allowed_hosts if ${one ? 'it is' : 'they are'} needed`,
    );
  }
  for (const target of other) parts.push(`refused ${target.target}${timesOf(target)}: ${target.reason}`);
  return parts.join('; ');
}

function timesOf(target: PreparationReport['egress'][number]): string {
  return target.requests && target.requests > 1 ? ` (${target.requests} times)` : '';
}

function ageOf(iso: string, now: Date): string {
  const minutes = Math.max(0, Math.round((now.getTime() - Date.parse(iso)) / 60_000));
  if (!Number.isFinite(minutes)) return 'earlier';
  if (minutes < 1) return 'just now';
  if (minutes < 120) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.round(hours / 24)} days ago`;
}
