import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { GitHubApiError } from '../../errors/index.js';
import type { GitHubOctokit } from './octokit.js';

export interface JobLogRequest {
  owner: string;
  repo: string;
  jobId: number;
  /** Fetches the signed log URL; injectable so nothing but this module talks to the storage host. */
  fetch: typeof globalThis.fetch;
}

/**
 * GitHub answers the log request with a 302 to a short-lived signed URL on
 * another host. We read the Location ourselves instead of letting fetch
 * follow it, so the installation token is never sent there, and stream the
 * body: a job log can be hundreds of megabytes.
 */
export async function streamJobLog(octokit: GitHubOctokit, request: JobLogRequest): Promise<Readable> {
  const response = await octokit.request('GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs', {
    owner: request.owner,
    repo: request.repo,
    job_id: request.jobId,
    request: { redirect: 'manual', parseSuccessResponseBody: false },
  });
  // Without a redirect (a proxy that follows it itself) the log is this very body.
  const direct: unknown = response.data;
  if (response.status < 300 || response.status >= 400) return toReadable(direct);

  const location = response.headers.location;
  if (typeof location !== 'string' || location === '') {
    throw new GitHubApiError(
      `GitHub answered the log request for job ${request.jobId} with HTTP ${response.status} but no Location. ` +
        'Try again later.',
      { status: response.status, retryable: true },
    );
  }
  return downloadLog(new URL(location, 'https://api.github.com'), request);
}

/** Downloads the log from the signed URL GitHub pointed at, with the injected fetch and no token. */
async function downloadLog(target: URL, request: JobLogRequest): Promise<Readable> {
  let logResponse: Response;
  try {
    logResponse = await request.fetch(target, { redirect: 'follow' });
  } catch (error) {
    // The signed URL is a credential for the log: name its host only.
    throw new GitHubApiError(
      `Downloading the log of job ${request.jobId} from ${target.host} failed. Try again later.`,
      { status: undefined, retryable: true, cause: error },
    );
  }
  if (!logResponse.ok) {
    await logResponse.body?.cancel();
    // An expired signature answers 403 or 404; asking GitHub again gives a fresh URL.
    throw new GitHubApiError(
      `Downloading the log of job ${request.jobId} from ${target.host} failed (HTTP ${logResponse.status}). ` +
        'Try again; the log may also have expired under the repository’s retention settings.',
      { status: logResponse.status, retryable: logResponse.status !== 410 },
    );
  }
  return toReadable(logResponse.body);
}

function toReadable(body: unknown): Readable {
  if (body instanceof ReadableStream) {
    // The DOM and node:stream/web declarations of ReadableStream differ only in typing.
    return Readable.fromWeb(body as NodeReadableStream<Uint8Array>);
  }
  if (body instanceof ArrayBuffer) return Readable.from([Buffer.from(body)]);
  if (typeof body === 'string') return Readable.from([Buffer.from(body, 'utf8')]);
  return Readable.from([]);
}
