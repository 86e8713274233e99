/**
 * Hidden HTML comments that tell the App's own comments apart: the adapter
 * finds a job's status comment by its marker, not by the bot's login, so
 * another bot or an edit by a person never gets overwritten by mistake.
 * Markers always open a body, where size cuts never reach.
 */
export type Marker =
  | { kind: 'status'; jobId: string }
  | { kind: 'attempt'; jobId: string; attempt: number }
  | { kind: 'final'; jobId: string };

type MarkerKind = Marker['kind'];

export function statusMarker(jobId: string): string {
  return formatMarker({ kind: 'status', jobId });
}

export function attemptMarker(jobId: string, attempt: number): string {
  return formatMarker({ kind: 'attempt', jobId, attempt });
}

export function finalMarker(jobId: string): string {
  return formatMarker({ kind: 'final', jobId });
}

/** Job ids are percent-encoded, so no id can end the comment early or add an attribute. */
export function formatMarker(marker: Marker): string {
  const job = `job=${encodeURIComponent(marker.jobId)}`;
  const attempt = marker.kind === 'attempt' ? ` n=${Math.trunc(marker.attempt)}` : '';
  return `<!-- selfdebug:${marker.kind} ${job}${attempt} -->`;
}

const MARKER = /<!-- selfdebug:(status|attempt|final) ([^<>\n]{1,300}?) -->/g;

/** Every well-formed marker in a body, in order; anything malformed is skipped. */
export function parseMarkers(body: string): Marker[] {
  const markers: Marker[] = [];
  for (const match of body.matchAll(MARKER)) {
    const marker = toMarker(match[1] as MarkerKind, attributes(match[2] ?? ''));
    if (marker) markers.push(marker);
  }
  return markers;
}

/** Whether a body carries exactly this marker (same kind, job and attempt). */
export function hasMarker(body: string, wanted: Marker): boolean {
  const text = formatMarker(wanted);
  return parseMarkers(body).some((marker) => formatMarker(marker) === text);
}

function attributes(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const pair of text.split(' ')) {
    const separator = pair.indexOf('=');
    if (separator > 0) values.set(pair.slice(0, separator), pair.slice(separator + 1));
  }
  return values;
}

function toMarker(kind: MarkerKind, values: Map<string, string>): Marker | null {
  const jobId = decode(values.get('job'));
  if (!jobId) return null;
  if (kind !== 'attempt') return { kind, jobId };
  const attempt = values.get('n') ?? '';
  return /^[1-9]\d{0,5}$/.test(attempt) ? { kind, jobId, attempt: Number(attempt) } : null;
}

function decode(value: string | undefined): string | null {
  if (!value) return null;
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}
