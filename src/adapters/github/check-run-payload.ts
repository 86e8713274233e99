import type { CheckAnnotation, CheckOutput, CheckRunUpdate } from '../../code-host/code-host.js';

/** GitHub takes at most 50 annotations per create or update request. */
const ANNOTATIONS_PER_REQUEST = 50;

interface GitHubAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: 'notice' | 'warning' | 'failure';
  message: string;
  title?: string;
}

export interface GitHubCheckOutput {
  title: string;
  summary: string;
  text?: string;
  annotations?: GitHubAnnotation[];
}

export interface GitHubCheckRunFields {
  status?: 'queued' | 'in_progress' | 'completed';
  conclusion?: CheckRunUpdate['conclusion'];
  details_url?: string;
  completed_at?: string;
  output?: GitHubCheckOutput;
}

/**
 * The body of the first create or update request and, when there are more
 * than 50 annotations, the outputs of the follow-up updates that carry the
 * rest. Follow-ups repeat title, summary and text so GitHub keeps them.
 */
export function checkRunRequests(
  update: CheckRunUpdate,
  now: () => Date,
): { first: GitHubCheckRunFields; followUps: GitHubCheckOutput[] } {
  const chunks = chunk(update.output?.annotations ?? [], ANNOTATIONS_PER_REQUEST);
  const completing = update.status === 'completed' || update.conclusion !== undefined;
  const first: GitHubCheckRunFields = {
    ...(update.status === undefined ? {} : { status: update.status }),
    ...(update.conclusion === undefined ? {} : { conclusion: update.conclusion }),
    ...(update.detailsUrl === undefined ? {} : { details_url: update.detailsUrl }),
    ...(completing ? { completed_at: now().toISOString() } : {}),
    ...(update.output === undefined ? {} : { output: outputWith(update.output, chunks[0]) }),
  };
  const output = update.output;
  const followUps =
    output === undefined ? [] : chunks.slice(1).map((annotations) => outputWith(output, annotations));
  return { first, followUps };
}

function outputWith(output: CheckOutput, annotations: CheckAnnotation[] | undefined): GitHubCheckOutput {
  return {
    title: output.title,
    summary: output.summary,
    ...(output.text === undefined ? {} : { text: output.text }),
    ...(annotations === undefined || annotations.length === 0
      ? {}
      : { annotations: annotations.map(toGitHub) }),
  };
}

function toGitHub(annotation: CheckAnnotation): GitHubAnnotation {
  return {
    path: annotation.path,
    start_line: annotation.startLine,
    end_line: annotation.endLine,
    annotation_level: annotation.level,
    message: annotation.message,
    ...(annotation.title === undefined ? {} : { title: annotation.title }),
  };
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}
