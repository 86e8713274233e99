/**
 * What a line says about the infrastructure, in families rather than per
 * tool: tools differ in wording but report the same few things underneath —
 * the operating system's socket and resolver errors (`ETIMEDOUT`,
 * `ECONNRESET`, `EAI_AGAIN`, `connection timed out`, `Temporary failure
 * resolving`), an HTTP status a registry answers (429, 502–504), and the
 * kernel's `ENOSPC`. Tool wording is listed only where a tool hides the
 * underlying error (pip's `ReadTimeoutError`, npm's `network timeout at`).
 * Where a line counts (the failing step's end, the runner's own error lines)
 * is infra-failure.ts's business.
 */

export type InfraKind = 'runner-lost' | 'cancelled' | 'network' | 'rate-limit' | 'disk-full';

interface Family {
  kind: InfraKind;
  pattern: RegExp;
}

/** The runner's own messages (actions/runner's JobRunner.cs; the service's annotation when a runner stops answering). */
const RUNNER_LOST =
  /The runner has received a shutdown signal|lost communication with the server|Operating system is shutting down for computer/;
/** .NET's OperationCanceledException as the runner writes it for a step it cancelled. */
const CANCELLED = /^The operation was canceled\.$/;
/**
 * A timeout the workflow set (`timeout-minutes`): the step or job ran too long, which a hanging test
 * does as well as a slow machine, so it is the code's until shown otherwise.
 */
const TIMED_OUT = /has timed out after \d+ minutes|has exceeded the maximum execution time/;

const TOOL_FAMILIES: readonly Family[] = [
  { kind: 'disk-full', pattern: /No space left on device|\bENOSPC\b|Disk quota exceeded|\bEDQUOT\b/ },
  {
    kind: 'rate-limit',
    pattern:
      /\btoomanyrequests\b|\b429 Too Many Requests\b|\bE429\b|\bHTTP(?:\/[\d.]+)? 429\b|\b(?:API|secondary|pull) rate limit\b/i,
  },
  {
    kind: 'network',
    pattern: new RegExp(
      [
        // The operating system's socket and resolver errors, by errno name and by strerror text.
        /\b(?:ETIMEDOUT|ECONNRESET|ECONNREFUSED|EAI_AGAIN|ENOTFOUND|ENETUNREACH|EHOSTUNREACH|ESOCKETTIMEDOUT|ERR_SOCKET_TIMEOUT)\b/
          .source,
        /[Cc]onnection (?:timed out|reset by peer|refused)|Network is unreachable|No route to host/.source,
        /Temporary failure (?:resolving|in name resolution)|Could not resolve host|Name or service not known|no such host|i\/o timeout/
          .source,
        /\bTLS handshake timeout\b|\bUnknownHostException\b|\bSocketTimeoutException\b|\bConnectException\b/
          .source,
        // Tools that hide the error underneath: pip (urllib3), npm's own timeout, cargo's retry notice.
        /\b(?:ReadTimeoutError|ConnectTimeoutError|NewConnectionError)\b|Could not fetch URL|network timeout at|spurious network error/
          .source,
        // A registry or proxy answering with a server error.
        /\b50[234] (?:Bad Gateway|Service Unavailable|Gateway Time-?out)\b/.source,
      ].join('|'),
    ),
  },
];

/** A connection to this machine is to a service the job itself starts (a database): the workflow's business. */
const LOOPBACK = /\b(?:127\.\d+\.\d+\.\d+|localhost|0\.0\.0\.0)\b|\[?::1\]?:\d+/;

/** The kind of runner failure a runner error line (or a job annotation) reports, or null. */
export function runnerEvidence(text: string): InfraKind | 'timed-out' | null {
  if (RUNNER_LOST.test(text)) return 'runner-lost';
  if (TIMED_OUT.test(text)) return 'timed-out';
  if (CANCELLED.test(text.trim())) return 'cancelled';
  return null;
}

/** The infrastructure failure a tool's output line reports, or null; a loopback address is never the infrastructure's. */
export function toolEvidence(text: string): InfraKind | null {
  for (const family of TOOL_FAMILIES) {
    if (!family.pattern.test(text)) continue;
    if (family.kind === 'network' && LOOPBACK.test(text)) return null;
    return family.kind;
  }
  return null;
}
